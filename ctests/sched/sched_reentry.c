// sched_reentry: user code that calls the scheduler back while it computes, as the reference
// allows. An eval callback that observes every node asks, for the node it is handed, the
// scheduler's getters (its backend, the split and copy counts, the backends, a buffer size) and
// reads the node's data with wsp_ggml_backend_tensor_get; the TEST backend's graph_compute asks
// the same of the first node of the graph it was given. Two evaluations of a graph over
// {TEST, CPU}; the second is computed again without a new allocation.
#include "sched_util.h"

struct observer {
    wsp_ggml_backend_sched_t sched;
    wsp_ggml_backend_t       cpu;
    int                      seen;
};

static void ask(const char * who, struct observer * o, struct wsp_ggml_tensor * t) {
    wsp_ggml_backend_t b = wsp_ggml_backend_sched_get_tensor_backend(o->sched, t);
    printf("%s %s backend=%s splits=%d copies=%d backends=%d first=%s cpu_buffer=%zu", who, wsp_ggml_get_name(t),
           b ? wsp_ggml_backend_name(b) : "(null)", wsp_ggml_backend_sched_get_n_splits(o->sched),
           wsp_ggml_backend_sched_get_n_copies(o->sched), wsp_ggml_backend_sched_get_n_backends(o->sched),
           wsp_ggml_backend_name(wsp_ggml_backend_sched_get_backend(o->sched, 0)),
           wsp_ggml_backend_sched_get_buffer_size(o->sched, o->cpu));
}

static bool eval(struct wsp_ggml_tensor * t, bool asking, void * user_data) {
    struct observer * o = (struct observer *) user_data;
    if (asking) {
        return true;
    }
    ask("eval", o, t);
    if (t->type == WSP_GGML_TYPE_F32 && t->buffer != NULL) {
        float first;
        wsp_ggml_backend_tensor_get(t, &first, 0, sizeof(first));
        printf(" data[0]=%08x", du_bits(first));
    }
    printf("\n");
    o->seen++;
    return true;
}

static void on_test_compute(struct wsp_ggml_cgraph * cgraph, void * user_data) {
    ask("test_backend", (struct observer *) user_data, wsp_ggml_graph_node(cgraph, 0));
    printf("\n");
}

int main(void) {
    struct observer o = { .cpu = su_cpu() };
    wsp_ggml_backend_t tb = test_backend_init();
    struct wsp_ggml_context * cp = su_ctx(1);
    struct wsp_ggml_tensor * p = su_named(wsp_ggml_new_tensor_2d(cp, WSP_GGML_TYPE_F32, 4, 3), "p");
    wsp_ggml_backend_buffer_t pb = wsp_ggml_backend_alloc_ctx_tensors(cp, tb);
    du_fill(p, 0.5f, 0.25f);

    o.sched = su_sched_test_cpu(tb, o.cpu, false, true);
    wsp_ggml_backend_sched_set_eval_callback(o.sched, eval, &o);
    test_backend_set_compute_hook(on_test_compute, &o);
    struct su_net n = su_make_net(p);
    su_alloc_print("reentry", o.sched, n.gf);
    for (int round = 0; round < 2; round++) {
        su_net_set_inputs(&n, round);
        char label[64];
        snprintf(label, sizeof(label), "round %d compute", round);
        su_status(label, wsp_ggml_backend_sched_graph_compute(o.sched, n.gf));
        du_print_tensor("o2", n.o2);
    }
    printf("nodes seen %d\n", o.seen);
    test_backend_set_compute_hook(NULL, NULL);

    wsp_ggml_backend_sched_free(o.sched);
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_buffer_free(pb);
    wsp_ggml_free(cp);
    wsp_ggml_backend_free(tb);
    wsp_ggml_backend_free(o.cpu);
    return 0;
}
