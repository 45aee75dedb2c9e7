// sched_cpu: the scheduler with the CPU backend alone (whisper.cpp's CPU-only configuration) and basic
// evaluation patterns:
//  1. a graph of several ops (mul_mat, add with broadcast, scale, soft_max, norm, mul, gelu, cont of a
//     transpose, sum_rows) with weights in a CPU WEIGHTS buffer and the input allocated by the scheduler
//     and set after alloc_graph: assignments, splits, copies, buffer size, status, outputs;
//  2. graph_compute without a prior alloc_graph (input preallocated by the caller);
//  3. repeated evaluation (non-parallel): compute, new input, compute, old input, compute;
//  4. graph_compute_async + synchronize, on CPU alone and on TEST + CPU.
#include "sched_util.h"

struct weights {
    struct wsp_ggml_context * ctx;
    wsp_ggml_backend_buffer_t buf;
    struct wsp_ggml_tensor  * w, * bias, * gamma;
};

static struct weights make_weights(wsp_ggml_backend_t cpu) {
    struct weights m;
    m.ctx   = su_ctx(8);
    m.w     = su_named(wsp_ggml_new_tensor_2d(m.ctx, WSP_GGML_TYPE_F32, 8, 6), "w");
    m.bias  = su_named(wsp_ggml_new_tensor_1d(m.ctx, WSP_GGML_TYPE_F32, 6), "bias");
    m.gamma = su_named(wsp_ggml_new_tensor_1d(m.ctx, WSP_GGML_TYPE_F32, 6), "gamma");
    m.buf   = wsp_ggml_backend_alloc_ctx_tensors(m.ctx, cpu);
    wsp_ggml_backend_buffer_set_usage(m.buf, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    du_fill(m.w, -0.75f, 0.03125f);
    du_fill(m.bias, 0.5f, -0.125f);
    du_fill(m.gamma, 1.0f, 0.0625f);
    return m;
}

static void free_weights(struct weights * m) {
    wsp_ggml_backend_buffer_free(m->buf);
    wsp_ggml_free(m->ctx);
}

struct net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * sm, * s, * o;
};

// x [8,4] -> mul_mat -> +bias -> *0.5 -> {soft_max, norm*gamma -> gelu} ; s = sum_rows(cont(transpose(gelu)))
static struct net make_net(const struct weights * m, bool x_input) {
    struct net n;
    n.ctx = su_ctx(32);
    n.x = wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 8, 4);
    if (x_input) {
        su_input(n.x, "x");
    } else {
        su_named(n.x, "x");
    }
    struct wsp_ggml_tensor * h = su_named(wsp_ggml_mul_mat(n.ctx, m->w, n.x), "h_mm");
    h = su_named(wsp_ggml_add(n.ctx, h, m->bias), "h_bias");
    h = su_named(wsp_ggml_scale(n.ctx, h, 0.5f), "h_scale");
    n.sm = su_output(wsp_ggml_soft_max(n.ctx, h), "out_sm");
    struct wsp_ggml_tensor * g = su_named(wsp_ggml_norm(n.ctx, h, 1e-5f), "g_norm");
    g = su_named(wsp_ggml_mul(n.ctx, g, m->gamma), "g_mul");
    g = su_named(wsp_ggml_gelu(n.ctx, g), "g_gelu");
    struct wsp_ggml_tensor * t = su_named(wsp_ggml_cont(n.ctx, wsp_ggml_transpose(n.ctx, g)), "t_cont");
    n.s = su_output(wsp_ggml_sum_rows(n.ctx, t), "out_s");
    n.o = su_output(wsp_ggml_add(n.ctx, n.sm, g), "out_o");
    n.gf = su_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.sm);
    wsp_ggml_build_forward_expand(n.gf, n.s);
    wsp_ggml_build_forward_expand(n.gf, n.o);
    return n;
}

static void print_outputs(const char * tag, const struct net * n) {
    char l[128];
    snprintf(l, sizeof(l), "%s out_sm", tag); du_print_tensor(l, n->sm);
    snprintf(l, sizeof(l), "%s out_s", tag);  du_print_tensor(l, n->s);
    snprintf(l, sizeof(l), "%s out_o", tag);  du_print_tensor(l, n->o);
}

static void cpu_only(wsp_ggml_backend_t cpu, const struct weights * m) {
    wsp_ggml_backend_t backends[1] = { cpu };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 1, 256, false, true);
    su_print_sched("s1 fresh", sched);

    struct net n = make_net(m, true);
    DU_B("s1 alloc_graph", wsp_ggml_backend_sched_alloc_graph(sched, n.gf));
    DU_B("s1 x_allocated", n.x->buffer != NULL);
    DU_S("s1 x_buffer", su_where(n.x));
    su_print_all("s1", sched, n.gf);
    du_fill(n.x, -1.0f, 0.0625f);
    su_status("s1 compute", wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    print_outputs("s1", &n);
    su_print_sched("s1 after_compute", sched);

    // scenario 3: repeated evaluation of the allocated graph with changing inputs
    float * first = su_get(n.o);
    du_fill(n.x, 2.0f, -0.125f);
    su_status("s3 compute2", wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    print_outputs("s3 second", &n);
    du_fill(n.x, -1.0f, 0.0625f);
    su_status("s3 compute3", wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    float * third = su_get(n.o);
    DU_B("s3 third_equals_first", memcmp(first, third, wsp_ggml_nbytes(n.o)) == 0);
    print_outputs("s3 third", &n);
    free(first);
    free(third);
    su_print_sched("s3 after", sched);

    // scenario 4a: async compute on the CPU alone
    du_fill(n.x, 0.25f, 0.25f);
    su_status("s4a compute_async", wsp_ggml_backend_sched_graph_compute_async(sched, n.gf));
    wsp_ggml_backend_sched_synchronize(sched);
    print_outputs("s4a", &n);

    wsp_ggml_backend_sched_reset(sched);
    su_print_sched("s1 after_reset", sched);
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_sched_free(sched);
}

// scenario 2: no alloc_graph: compute allocates by itself; the input lives in a buffer of the caller
static void compute_without_alloc(wsp_ggml_backend_t cpu, const struct weights * m) {
    wsp_ggml_backend_t backends[1] = { cpu };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 1, 256, false, false);

    struct net n = make_net(m, false);
    wsp_ggml_backend_buffer_t xb = wsp_ggml_backend_alloc_buffer(cpu, wsp_ggml_nbytes(n.x));
    DU_I("s2 tensor_alloc", wsp_ggml_backend_tensor_alloc(xb, n.x, wsp_ggml_backend_buffer_get_base(xb)));
    du_fill(n.x, 1.5f, -0.0625f);
    su_status("s2 compute", wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    su_print_all("s2", sched, n.gf);
    print_outputs("s2", &n);

    // a second compute of the same graph: the scheduler keeps the allocation
    su_status("s2 compute_again", wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    print_outputs("s2 again", &n);

    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_buffer_free(xb);
    wsp_ggml_backend_sched_free(sched);
}

// scenario 4b: async compute with TEST + CPU (a TEST-resident tensor pulls elementwise ops to TEST)
static void async_two_backends(wsp_ggml_backend_t cpu) {
    test_backend_reset_config();
    test_backend_reset_counters();
    wsp_ggml_backend_t tb = test_backend_init();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);

    struct su_param p = su_param_new(tb, "p", 4, 3, 0.5f, 0.5f);

    struct wsp_ggml_context * ctx = su_ctx(16);
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(ctx, p.t, x), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_sqr(ctx, a), "b");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_mul_mat(ctx, b, x), "c");
    struct wsp_ggml_tensor * d = su_output(wsp_ggml_scale(ctx, c, 0.125f), "d");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, d);

    su_alloc_print("s4b", sched, gf);
    du_fill(x, -1.0f, 0.25f);
    su_status("s4b compute_async", wsp_ggml_backend_sched_graph_compute_async(sched, gf));
    wsp_ggml_backend_sched_synchronize(sched);
    du_print_tensor("s4b d", d);
    du_counters("s4b counters");

    du_fill(x, 3.0f, -0.5f);
    su_status("s4b compute_async2", wsp_ggml_backend_sched_graph_compute_async(sched, gf));
    wsp_ggml_backend_sched_synchronize(sched);
    du_print_tensor("s4b d2", d);
    du_counters("s4b counters2");

    wsp_ggml_free(ctx);
    wsp_ggml_backend_sched_free(sched);
    su_param_free(&p);
    wsp_ggml_backend_free(tb);
    du_counters("s4b counters_end");
}

int main(void) {
    wsp_ggml_backend_t cpu = su_cpu();
    struct weights m = make_weights(cpu);
    cpu_only(cpu, &m);
    compute_without_alloc(cpu, &m);
    async_two_backends(cpu);
    free_weights(&m);
    wsp_ggml_backend_free(cpu);
    printf("done\n");
    return 0;
}
