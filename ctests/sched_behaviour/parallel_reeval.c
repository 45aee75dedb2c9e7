// parallel_reeval (run against the library only): in parallel mode (n_copies 4) an allocated graph whose
// inputs are copied to another backend is evaluated repeatedly with new input values, by graph_compute
// and by graph_compute_async + synchronize; every evaluation must give exactly what a CPU-only computation
// of the same graph gives. The reference returns the first evaluation's outputs from the second one on.
// Exit status 0 if all evaluations are right, 1 otherwise.
#include "sched_util.h"

int main(void) {
    wsp_ggml_backend_t cpu = su_cpu();
    test_backend_reset_config();
    wsp_ggml_backend_t tb = test_backend_init();
    struct su_param p = su_param_new(tb, "p", 4, 3, 0.25f, 0.375f);
    struct su_param twin = su_param_twin(cpu, &p);

    int failures = 0;
    wsp_ggml_backend_t backends[2] = { tb, cpu };
    for (int mode = 0; mode < 2; mode++) {
        const bool async = mode == 1;
        wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 2, 256, true, true);
        struct su_net n = su_make_net(p.t);
        if (!wsp_ggml_backend_sched_alloc_graph(sched, n.gf)) {
            printf("mode %d: alloc_graph failed\n", mode);
            return 1;
        }
        printf("mode %s n_copies %d n_splits %d\n", async ? "async" : "sync", wsp_ggml_backend_sched_get_n_copies(sched),
               wsp_ggml_backend_sched_get_n_splits(sched));
        // more rounds than copies, so every copy slot is used and reused
        for (int round = 0; round < 9; round++) {
            su_net_set_inputs(&n, round);
            enum wsp_ggml_status st;
            if (async) {
                st = wsp_ggml_backend_sched_graph_compute_async(sched, n.gf);
                wsp_ggml_backend_sched_synchronize(sched);
            } else {
                st = wsp_ggml_backend_sched_graph_compute(sched, n.gf);
            }
            const bool ok = st == WSP_GGML_STATUS_SUCCESS && su_net_matches_cpu(&n, cpu, twin.t, round);
            printf("mode %s round %d status %d %s\n", async ? "async" : "sync", round, (int) st, ok ? "ok" : "WRONG");
            if (!ok) {
                failures++;
            }
        }
        wsp_ggml_free(n.ctx);
        wsp_ggml_backend_sched_free(sched);
    }

    su_param_free(&twin);
    su_param_free(&p);
    wsp_ggml_backend_free(tb);
    wsp_ggml_backend_free(cpu);
    printf("%s (%d wrong)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
