// parallel_reeval (run against the library only): in parallel mode (n_copies 4) an allocated graph whose
// inputs are copied to another backend is evaluated repeatedly with new input values, by graph_compute
// and by graph_compute_async + synchronize; every evaluation must give exactly what a CPU-only computation
// of the same graph gives. The reference returns the first evaluation's outputs from the second one on.
// Exit status 0 if all evaluations are right, 1 otherwise.
#include "sched_util.h"


static void set_inputs(struct su_net * n, int round) {
    du_fill(n->x, -1.0f + 0.5f * (float) round, 0.125f);
    du_fill(n->y, 0.5f, 0.25f - 0.0625f * (float) round);
}

static float * outputs(struct su_net * n) {
    size_t n1 = wsp_ggml_nbytes(n->o1), n2 = wsp_ggml_nbytes(n->o2);
    float * v = (float *) malloc(n1 + n2);
    wsp_ggml_backend_tensor_get(n->o1, v, 0, n1);
    wsp_ggml_backend_tensor_get(n->o2, (char *) v + n1, 0, n2);
    return v;
}

static float * cpu_reference(wsp_ggml_backend_t cpu, const float * p_vals, int round) {
    struct wsp_ggml_context * cp = su_ctx(2);
    struct wsp_ggml_tensor * p = su_named(wsp_ggml_new_tensor_2d(cp, WSP_GGML_TYPE_F32, 4, 3), "p");
    wsp_ggml_backend_buffer_t pb = wsp_ggml_backend_alloc_ctx_tensors(cp, cpu);
    wsp_ggml_backend_tensor_set(p, p_vals, 0, wsp_ggml_nbytes(p));
    wsp_ggml_backend_t backends[1] = { cpu };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 1, 256, false, false);
    struct su_net n = su_make_net(p);
    wsp_ggml_backend_sched_alloc_graph(sched, n.gf);
    set_inputs(&n, round);
    wsp_ggml_backend_sched_graph_compute(sched, n.gf);
    float * v = outputs(&n);
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_backend_buffer_free(pb);
    wsp_ggml_free(cp);
    return v;
}

int main(void) {
    wsp_ggml_backend_t cpu = su_cpu();
    test_backend_reset_config();
    wsp_ggml_backend_t tb = test_backend_init();
    struct wsp_ggml_context * cp = su_ctx(2);
    struct wsp_ggml_tensor * p = su_named(wsp_ggml_new_tensor_2d(cp, WSP_GGML_TYPE_F32, 4, 3), "p");
    wsp_ggml_backend_buffer_t pb = wsp_ggml_backend_alloc_ctx_tensors(cp, tb);
    du_fill(p, 0.25f, 0.375f);
    float * p_vals = su_get(p);
    const size_t nbytes = (12 + 9) * sizeof(float);

    int failures = 0;
    wsp_ggml_backend_t backends[2] = { tb, cpu };
    for (int mode = 0; mode < 2; mode++) {
        const bool async = mode == 1;
        wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 2, 256, true, true);
        struct su_net n = su_make_net(p);
        if (!wsp_ggml_backend_sched_alloc_graph(sched, n.gf)) {
            printf("mode %d: alloc_graph failed\n", mode);
            return 1;
        }
        printf("mode %s n_copies %d n_splits %d\n", async ? "async" : "sync", wsp_ggml_backend_sched_get_n_copies(sched),
               wsp_ggml_backend_sched_get_n_splits(sched));
        // more rounds than copies, so every copy slot is used and reused
        for (int round = 0; round < 9; round++) {
            set_inputs(&n, round);
            enum wsp_ggml_status st;
            if (async) {
                st = wsp_ggml_backend_sched_graph_compute_async(sched, n.gf);
                wsp_ggml_backend_sched_synchronize(sched);
            } else {
                st = wsp_ggml_backend_sched_graph_compute(sched, n.gf);
            }
            float * got = outputs(&n);
            float * ref = cpu_reference(cpu, p_vals, round);
            const bool ok = st == WSP_GGML_STATUS_SUCCESS && memcmp(got, ref, nbytes) == 0;
            printf("mode %s round %d status %d %s\n", async ? "async" : "sync", round, (int) st, ok ? "ok" : "WRONG");
            if (!ok) {
                failures++;
            }
            free(got);
            free(ref);
        }
        wsp_ggml_free(n.ctx);
        wsp_ggml_backend_sched_free(sched);
    }

    free(p_vals);
    wsp_ggml_backend_buffer_free(pb);
    wsp_ggml_free(cp);
    wsp_ggml_backend_free(tb);
    wsp_ggml_backend_free(cpu);
    printf("%s (%d wrong)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
