// sched_debug: the scheduler's debug listing (WSP_GGML_SCHED_DEBUG=2), as an application's log
// callback receives it: every split with its inputs, and every node with its op (0.7: a unary
// op by its function), name, size, backend and use count (0.7: and its compute flag), with its
// sources. A graph over {TEST, CPU} with a TEST weight, a unary op and a node used three times.
#define _POSIX_C_SOURCE 200809L  // setenv
#include <stdlib.h>
#include <string.h>

#include "sched_util.h"
#include "ggml_names.h"

// debug lines go to stdout, everything else to stderr; so does the one line the reference logs
// only when built without NDEBUG (whisper.rn's app builds define it, and the library follows them)
static void print_log(enum wsp_ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    const bool debug_build_only = strstr(text, "failed to allocate graph, reserving") != NULL;
    fputs(text, level == WSP_GGML_LOG_LEVEL_DEBUG && !debug_build_only ? stdout : stderr);
}

int main(void) {
    wsp_ggml_backend_t cpu = su_cpu();
    wsp_ggml_backend_t tb = test_backend_init();
    struct wsp_ggml_context * cp = su_ctx(1);
    struct wsp_ggml_tensor * p = su_named(wsp_ggml_new_tensor_2d(cp, WSP_GGML_TYPE_F32, 4, 3), "p");
    wsp_ggml_backend_buffer_t pb = wsp_ggml_backend_alloc_ctx_tensors(cp, tb);
    du_fill(p, 0.5f, 0.25f);

    struct su_net n = su_make_net(p);
    // g = gelu(o1) reads o1 a third time (after sub's users m and the output)
    struct wsp_ggml_tensor * g = su_output(wsp_ggml_gelu(n.ctx, n.o1), "g");
    wsp_ggml_build_forward_expand(n.gf, g);

    setenv(GGML_ENV("GGML_SCHED_DEBUG"), "2", 1);
    wsp_ggml_log_set(print_log, NULL);
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);
    su_alloc_print("debug", sched, n.gf);
    su_net_set_inputs(&n, 0);
    su_status("compute", wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    wsp_ggml_log_set(NULL, NULL);

    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_buffer_free(pb);
    wsp_ggml_free(cp);
    wsp_ggml_backend_free(tb);
    wsp_ggml_backend_free(cpu);
    return 0;
}
