// parallel_reeval (run against the library only): in parallel mode (n_copies 4) an allocated graph whose
// inputs are copied to another backend is evaluated repeatedly with new input values, by graph_compute
// and by graph_compute_async + synchronize; every evaluation must give exactly what a CPU-only computation
// of the same graph gives. The reference returns the first evaluation's outputs from the second one on.
// Exit status 0 if all evaluations are right, 1 otherwise.
#include "sched_util.h"

int main(void) {
    struct su_fixture f = su_fixture_new(4, 3, 0.25f, 0.375f);
    int failures = 0;
    for (int mode = 0; mode < 2; mode++) {
        const bool async = mode == 1;
        wsp_ggml_backend_sched_t sched = su_sched_test_cpu(f.tb, f.cpu, true, true);
        struct su_net n = su_make_net(f.p.t);
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
            const bool ok = st == WSP_GGML_STATUS_SUCCESS && su_net_matches_cpu(&n, f.cpu, f.p_cpu.t, round);
            printf("mode %s round %d status %d %s\n", async ? "async" : "sync", round, (int) st, ok ? "ok" : "WRONG");
            if (!ok) {
                failures++;
            }
        }
        wsp_ggml_free(n.ctx);
        wsp_ggml_backend_sched_free(sched);
    }

    su_fixture_free(&f);
    printf("%s (%d wrong)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
