// Uses the installed header and the library: the registry finds whisper.rn's CPU backend,
// a CPU buffer holds a tensor's bytes.
#include "wsp_ggml_backend.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    if (wsp_ggml_backend_dev_count() < 1) {
        fprintf(stderr, "no device registered\n");
        return 1;
    }
    wsp_ggml_backend_dev_t cpu = wsp_ggml_backend_dev_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU);
    wsp_ggml_backend_buffer_t buffer = wsp_ggml_backend_buft_alloc_buffer(wsp_ggml_backend_dev_buffer_type(cpu), 64);
    const char * name = wsp_ggml_backend_buffer_name(buffer);
    const int ok = cpu != NULL && buffer != NULL && strcmp(name, "CPU") == 0 && wsp_ggml_backend_buffer_get_size(buffer) == 64;
    printf("device %s, buffer %s: %s\n", wsp_ggml_backend_dev_name(cpu), name, ok ? "ok" : "wrong");
    wsp_ggml_backend_buffer_free(buffer);
    return ok ? 0 : 1;
}
