// Frees a buffer twice. Undefined in C; a debug build of the library must report it (with the
// buffer's address) and abort, instead of corrupting the heap.
#include "ggml-backend.h"

#include <stdio.h>

int main(void) {
    wsp_ggml_backend_buffer_t buffer = wsp_ggml_backend_buft_alloc_buffer(wsp_ggml_backend_cpu_buffer_type(), 64);
    wsp_ggml_backend_buffer_free(buffer);
    wsp_ggml_backend_buffer_free(buffer);
    printf("returned\n");
    return 1;
}
