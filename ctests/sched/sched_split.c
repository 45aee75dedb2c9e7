// sched_split: TEST + CPU with different sets of ops supported by TEST, on one graph whose data sits partly
// in a TEST buffer (p, q) and partly in scheduler-allocated CPU inputs (x, y): which backend each leaf and
// node gets, how the graph is split, which inputs are copied (copy names "<backend>#<name>#<copy>" seen
// through node->src[j]), compute buffer sizes, status, outputs and the TEST call counters, for
//   A: TEST supports NONE + ADD (p used through ADD, no view of q)
//   B: NONE + MUL + SCALE (p used through MUL, no view of q)
//   C: the default set (all elementwise + views)
//   D: the default set, TEST backend without the async interface, op_offload off
//   E: NONE + ADD + MUL + SUB + views (no SCALE, no SQR)
//   F: NONE + ADD + SUB + SQR + TRANSPOSE, graph built in the other order
// (every op reading p or q directly must be supported by TEST: the CPU cannot read TEST buffers, and
// the reference aborts on such a pre-allocated source that no backend can use)
#include "sched_util.h"

struct net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * y, * o1, * o2, * o3;
};

// P(a, b) is ADD or MUL (the op through which p is read)
// c = P(p, x); d = c * y; e = d * 0.25; f = sqr(e); g = f - x; m = mul_mat(g, c); o1 = m + m;
// with_q: h = g + cont(transpose(q)) (transpose: a view of a TEST tensor), else h = g;
// o2 = P(h, p); o3 = scale(sub(o2, e), -2)
static struct wsp_ggml_tensor * pop(struct wsp_ggml_context * ctx, bool mul, struct wsp_ggml_tensor * a, struct wsp_ggml_tensor * b) {
    return mul ? wsp_ggml_mul(ctx, a, b) : wsp_ggml_add(ctx, a, b);
}

static struct net make_net(struct wsp_ggml_tensor * p, struct wsp_ggml_tensor * q, bool p_mul, bool with_q, bool reversed) {
    struct net n;
    n.ctx = su_ctx(40);
    n.x = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    n.y = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 1), "y");
    struct wsp_ggml_tensor * c = su_named(pop(n.ctx, p_mul, p, n.x), "c");
    struct wsp_ggml_tensor * d = su_named(wsp_ggml_mul(n.ctx, c, n.y), "d");
    struct wsp_ggml_tensor * e = su_named(wsp_ggml_scale(n.ctx, d, 0.25f), "e");
    struct wsp_ggml_tensor * f = su_named(wsp_ggml_sqr(n.ctx, e), "f");
    struct wsp_ggml_tensor * g = su_named(wsp_ggml_sub(n.ctx, f, n.x), "g");
    struct wsp_ggml_tensor * m = su_named(wsp_ggml_mul_mat(n.ctx, g, c), "m");
    n.o1 = su_output(wsp_ggml_add(n.ctx, m, m), "o1");
    struct wsp_ggml_tensor * h = g;
    if (with_q) {
        struct wsp_ggml_tensor * v = su_named(wsp_ggml_transpose(n.ctx, q), "qT");
        struct wsp_ggml_tensor * vc = su_named(wsp_ggml_cont(n.ctx, v), "qT_cont");
        h = su_named(wsp_ggml_add(n.ctx, g, vc), "h");
    }
    n.o2 = su_output(pop(n.ctx, p_mul, h, p), "o2");
    n.o3 = su_output(wsp_ggml_scale(n.ctx, wsp_ggml_sub(n.ctx, n.o2, e), -2.0f), "o3");
    n.gf = su_graph(n.ctx);
    if (reversed) {
        wsp_ggml_build_forward_expand(n.gf, n.o3);
        wsp_ggml_build_forward_expand(n.gf, n.o1);
    } else {
        wsp_ggml_build_forward_expand(n.gf, n.o1);
        wsp_ggml_build_forward_expand(n.gf, n.o3);
    }
    return n;
}

static void run(const char * tag, wsp_ggml_backend_t cpu, const enum wsp_ggml_op * ops, int n_ops, bool p_mul,
                bool with_q, bool async_iface, bool reversed, bool op_offload) {
    char l[128];
    test_backend_reset_config();
    if (ops != NULL) {
        test_backend_set_supported_ops(ops, n_ops);
    }
    test_backend_set_async_iface(async_iface);
    test_backend_reset_counters();

    wsp_ggml_backend_t tb = test_backend_init();

    // p [4,3] and q [3,4] live in a TEST buffer (plain usage, not weights)
    struct wsp_ggml_context * cp = su_ctx(4);
    struct wsp_ggml_tensor * p = su_named(wsp_ggml_new_tensor_2d(cp, WSP_GGML_TYPE_F32, 4, 3), "p");
    struct wsp_ggml_tensor * q = su_named(wsp_ggml_new_tensor_2d(cp, WSP_GGML_TYPE_F32, 3, 4), "q");
    wsp_ggml_backend_buffer_t pb = wsp_ggml_backend_alloc_ctx_tensors(cp, tb);
    du_fill(p, 0.5f, 0.25f);
    du_fill(q, -1.0f, 0.125f);

    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, op_offload);
    struct net n = make_net(p, q, p_mul, with_q, reversed);

    su_alloc_print(tag, sched, n.gf);
    du_fill(n.x, -0.5f, 0.125f);
    du_fill(n.y, 2.0f, -0.5f);
    snprintf(l, sizeof(l), "%s after_alloc", tag); du_counters(l);
    snprintf(l, sizeof(l), "%s compute", tag); su_status(l, wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    snprintf(l, sizeof(l), "%s o1", tag); du_print_tensor(l, n.o1);
    snprintf(l, sizeof(l), "%s o2", tag); du_print_tensor(l, n.o2);
    snprintf(l, sizeof(l), "%s o3", tag); du_print_tensor(l, n.o3);
    snprintf(l, sizeof(l), "%s after_compute", tag); du_counters(l);

    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_backend_buffer_free(pb);
    wsp_ggml_free(cp);
    wsp_ggml_backend_free(tb);
    snprintf(l, sizeof(l), "%s end", tag); du_counters(l);
    test_backend_reset_config();
}

int main(void) {
    wsp_ggml_backend_t cpu = su_cpu();

    const enum wsp_ggml_op add_only[]  = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD };
    const enum wsp_ggml_op mul_scale[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_MUL, WSP_GGML_OP_SCALE };
    const enum wsp_ggml_op no_scale[]  = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD, WSP_GGML_OP_MUL, WSP_GGML_OP_SUB,
                                           WSP_GGML_OP_RESHAPE, WSP_GGML_OP_VIEW, WSP_GGML_OP_PERMUTE,
                                           WSP_GGML_OP_TRANSPOSE };
    const enum wsp_ggml_op add_sub_sqr[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD, WSP_GGML_OP_SUB, WSP_GGML_OP_SQR,
                                             WSP_GGML_OP_TRANSPOSE };

    //   tag  cpu  ops          n  p_mul  with_q async  reversed offload
    run("A", cpu, add_only,    2, false, false, true,  false,   true);
    run("B", cpu, mul_scale,   3, true,  false, true,  false,   true);
    run("C", cpu, NULL,        0, false, true,  true,  false,   true);
    run("D", cpu, NULL,        0, false, true,  false, false,   false);
    run("E", cpu, no_scale,    8, false, true,  true,  false,   true);
    run("F", cpu, add_sub_sqr, 5, false, true,  true,  true,    true);

    wsp_ggml_backend_free(cpu);
    printf("done\n");
    return 0;
}
