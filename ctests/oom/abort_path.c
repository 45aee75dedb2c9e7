/*
 * abort_path.c - what still aborts goes through ggml.
 *
 * A panic in the library (a broken invariant of its own, or memory it cannot do without in a call
 * that returns nothing) reports through ggml's log and ggml_abort, so that an application's log
 * callback and, where the release has one, its abort callback see the reason. Made to happen here
 * with the count-allocations build (src/base/heap.rs): registering a backend, which returns
 * nothing, while the library's first allocation there (the list of its devices) fails: Rust's
 * allocation error is a panic ("memory allocation of N bytes failed"). The test (judged
 * oom-abort) expects an abort with the panic's message; this program prints what its callbacks
 * saw, to stderr.
 */
#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "ggml-cpu.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void wsp_rs_fail_allocation(uint64_t nth);

static void on_log(enum wsp_ggml_log_level level, const char * text, void * user_data) {
    (void) level;
    (void) user_data;
    fprintf(stderr, "the application's log callback: %s", text);
}

#ifdef HAS_ABORT_CALLBACK
static void on_abort(const char * message) {
    fprintf(stderr, "the application's abort callback: %s\n", message);
}
#endif

int main(void) {
    wsp_ggml_log_set(on_log, NULL);
#ifdef HAS_ABORT_CALLBACK
    wsp_ggml_set_abort_callback(on_abort);
#endif
    wsp_ggml_backend_reg_t cpu = wsp_ggml_backend_cpu_reg();
    if (wsp_ggml_backend_reg_count() == 0 || cpu == NULL) {
        fprintf(stderr, "abort_path: setup failed\n");
        return 2;
    }
    wsp_rs_fail_allocation(1);
    wsp_ggml_backend_register(cpu);
    printf("returned\n");
    return 1;
}
