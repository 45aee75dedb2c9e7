// sched_edge: less common scheduler situations.
//  X1: an unallocated leaf that is not flagged input (k) takes the backend of its first consumer (TEST)
//      and is allocated in the TEST compute buffer; a CPU consumer gets a copy; k set after alloc.
//  X2: the graph starts with view nodes (reshape/permute of an input) before the first compute node.
//  X3: a view of a CPU input consumed on TEST (the view is copied, with its strides).
//  X4: an input consumed by a TEST split, a CPU split and a later TEST split (one TEST copy, reused).
//  X5: explicit buffer types in sched_new: CPU with a caller-defined host buffer type ("CUSTOM", and a
//      padded variant whose get_alloc_size adds 16 bytes), and {TEST, CPU} with {TEST, CUSTOM}.
//  X6: a small graph_size (32) and a graph using most of it.
//  X7: parallel mode with op offload: host weights offloaded to TEST are copied in every evaluation;
//      reset + fresh graph rounds.
//  X8: graph_compute called with another graph while one is allocated (no reset in between): the
//      allocated graph is what gets computed; after a reset the new graph is allocated and computed.
//  X9: an eval callback in parallel mode (observes every node, cancels in the TEST split), two rounds.
#include "sched_util.h"

static void x1(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p) {
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);
    struct wsp_ggml_context * ctx = su_ctx(16);
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    struct wsp_ggml_tensor * k = su_named(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "k");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_add(ctx, p, x), "c");
    struct wsp_ggml_tensor * d = su_output(wsp_ggml_mul(ctx, c, k), "d");
    struct wsp_ggml_tensor * e = su_output(wsp_ggml_mul_mat(ctx, d, k), "e");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, e);
    su_alloc_print("X1", sched, gf);
    DU_S("X1 k_buffer", su_where(k));
    du_fill(x, 0.5f, -0.125f);
    du_fill(k, -2.0f, 0.375f);
    struct wsp_ggml_tensor * outs[2] = { d, e };
    su_compute_print("X1", sched, gf, outs, 2);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_sched_free(sched);
}

static void x2_x3(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p) {
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);

    // X2: r = reshape(x) [3,4]; t = permute(r) [4,3] (views first); a = p + cont(t)... p is [4,3]
    test_backend_reset_counters();
    struct wsp_ggml_context * ctx = su_ctx(16);
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 3, 4), "x");
    struct wsp_ggml_tensor * r = su_named(wsp_ggml_reshape_2d(ctx, x, 4, 3), "r");
    struct wsp_ggml_tensor * t = su_named(wsp_ggml_transpose(ctx, r), "t");
    struct wsp_ggml_tensor * tc = su_named(wsp_ggml_cont(ctx, t), "tc");
    struct wsp_ggml_tensor * a = su_output(wsp_ggml_add(ctx, p, r), "a");
    struct wsp_ggml_tensor * b = su_output(wsp_ggml_sqr(ctx, tc), "b");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, a);
    wsp_ggml_build_forward_expand(gf, b);
    su_alloc_print("X2", sched, gf);
    du_fill(x, -1.0f, 0.25f);
    struct wsp_ggml_tensor * outs2[2] = { a, b };
    su_compute_print("X2", sched, gf, outs2, 2);
    wsp_ggml_free(ctx);

    // X3: xv = 2-D view of x with a row stride of 5 floats (non-contiguous) consumed by TEST
    wsp_ggml_backend_sched_reset(sched);
    test_backend_reset_counters();
    ctx = su_ctx(16);
    struct wsp_ggml_tensor * xb = su_input(wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 20), "xb");
    struct wsp_ggml_tensor * xv = su_named(wsp_ggml_view_2d(ctx, xb, 4, 3, 5 * sizeof(float), sizeof(float)), "xv");
    struct wsp_ggml_tensor * s = su_output(wsp_ggml_sub(ctx, p, xv), "s");
    struct wsp_ggml_tensor * m = su_output(wsp_ggml_mul(ctx, s, xv), "m");
    gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, m);
    su_alloc_print("X3", sched, gf);
    du_fill(xb, 0.0f, 0.5f);
    struct wsp_ggml_tensor * outs3[2] = { s, m };
    su_compute_print("X3", sched, gf, outs3, 2);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_sched_free(sched);
}

// X4: TEST (a = p + x), CPU (b = mul_mat(a, x), bs, o), TEST again (c = q + x reads x again, d = c * a)
static void x4(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p, struct wsp_ggml_tensor * q) {
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);
    struct wsp_ggml_context * ctx = su_ctx(16);
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(ctx, p, x), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_mul_mat(ctx, a, x), "b");          // [3,3] CPU
    struct wsp_ggml_tensor * bs = su_named(wsp_ggml_scale(ctx, b, 0.5f), "bs");       // CPU
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_add(ctx, q, x), "c");              // TEST again, x again
    struct wsp_ggml_tensor * d = su_output(wsp_ggml_mul(ctx, c, a), "d");
    struct wsp_ggml_tensor * o = su_output(wsp_ggml_add(ctx, bs, bs), "o");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, o);
    wsp_ggml_build_forward_expand(gf, d);
    su_alloc_print("X4", sched, gf);
    du_fill(x, 1.0f, -0.25f);
    struct wsp_ggml_tensor * outs[2] = { d, o };
    su_compute_print("X4", sched, gf, outs, 2);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_sched_free(sched);
}

static void x5(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p) {
    for (int pad = 0; pad < 2; pad++) {
        struct du_custom cu;
        wsp_ggml_backend_buffer_type_t cbuft = du_custom_init(&cu, pad ? "CUSTOMPAD" : "CUSTOM", true, pad != 0, 0);
        const char * tag = pad ? "X5pad" : "X5";
        char l[128];

        // CPU alone with the custom buffer type
        wsp_ggml_backend_t b1[1] = { cpu };
        wsp_ggml_backend_buffer_type_t t1[1] = { cbuft };
        wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(b1, t1, 1, 256, false, true);
        struct wsp_ggml_context * ctx = su_ctx(16);
        struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
        struct wsp_ggml_tensor * y = su_named(wsp_ggml_sqr(ctx, x), "y");
        struct wsp_ggml_tensor * z = su_output(wsp_ggml_mul_mat(ctx, y, x), "z");
        struct wsp_ggml_cgraph * gf = su_graph(ctx);
        wsp_ggml_build_forward_expand(gf, z);
        snprintf(l, sizeof(l), "%s cpu", tag); su_alloc_print(l, sched, gf);
        du_fill(x, -0.5f, 0.25f);
        struct wsp_ggml_tensor * outs[1] = { z };
        su_compute_print(l, sched, gf, outs, 1);
        wsp_ggml_free(ctx);
        wsp_ggml_backend_sched_free(sched);
        printf("%s cpu custom n_alloc %d n_init %d n_reset %d n_free %d\n", tag, cu.n_alloc, cu.n_init, cu.n_reset, cu.n_free);

        // {TEST, CPU} with {TEST, CUSTOM}
        test_backend_reset_counters();
        wsp_ggml_backend_t b2[2] = { tb, cpu };
        wsp_ggml_backend_buffer_type_t t2[2] = { test_backend_buffer_type(), cbuft };
        sched = wsp_ggml_backend_sched_new(b2, t2, 2, 256, false, true);
        ctx = su_ctx(16);
        x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
        struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(ctx, p, x), "a");
        struct wsp_ggml_tensor * m = su_named(wsp_ggml_mul_mat(ctx, a, x), "m");
        struct wsp_ggml_tensor * o = su_output(wsp_ggml_scale(ctx, m, 2.0f), "o");
        gf = su_graph(ctx);
        wsp_ggml_build_forward_expand(gf, o);
        snprintf(l, sizeof(l), "%s two", tag); su_alloc_print(l, sched, gf);
        du_fill(x, 0.25f, 0.5f);
        struct wsp_ggml_tensor * outs2[1] = { o };
        su_compute_print(l, sched, gf, outs2, 1);
        wsp_ggml_free(ctx);
        wsp_ggml_backend_sched_free(sched);
        printf("%s two custom n_alloc %d n_init %d n_reset %d n_free %d\n", tag, cu.n_alloc, cu.n_init, cu.n_reset, cu.n_free);
    }
}

// X6: a chain of 20 ops (x * 1.01, + y, ...) alternating TEST-friendly ops, graph_size 32
static void x6(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p) {
    test_backend_reset_counters();
    wsp_ggml_backend_t backends[2] = { tb, cpu };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 2, 32, false, true);
    struct wsp_ggml_context * ctx = su_ctx(40);
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    struct wsp_ggml_tensor * h = su_named(wsp_ggml_add(ctx, p, x), "h0");
    for (int i = 1; i < 20; i++) {
        char name[16];
        snprintf(name, sizeof(name), "h%d", i);
        if (i % 5 == 0) {
            h = wsp_ggml_cont(ctx, wsp_ggml_transpose(ctx, wsp_ggml_cont(ctx, wsp_ggml_transpose(ctx, h))));  // CPU
        } else if (i % 2) {
            h = wsp_ggml_scale(ctx, h, 0.75f);
        } else {
            h = wsp_ggml_sub(ctx, h, x);
        }
        su_named(h, name);
    }
    su_output(h, "h_out");
    struct wsp_ggml_cgraph * gf = wsp_ggml_new_graph_custom(ctx, 64, false);
    wsp_ggml_build_forward_expand(gf, h);
    printf("X6 graph n_nodes %d n_leafs %d\n", gf->n_nodes, gf->n_leafs);
    DU_B("X6 alloc_graph", wsp_ggml_backend_sched_alloc_graph(sched, gf));
    su_print_sched("X6", sched);
    for (int i = 0; i < gf->n_nodes; i++) {
        printf("X6 node %d %s %s\n", i, wsp_ggml_get_name(gf->nodes[i]),
               su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, gf->nodes[i])));
    }
    du_fill(x, 0.5f, 0.125f);
    struct wsp_ggml_tensor * outs[1] = { h };
    su_compute_print("X6", sched, gf, outs, 1);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_sched_free(sched);
}

static void x7(wsp_ggml_backend_t cpu) {
    test_backend_reset_config();
    const enum wsp_ggml_op offs[] = { WSP_GGML_OP_ADD, WSP_GGML_OP_MUL };
    test_backend_set_offload_ops(offs, 2);
    test_backend_set_accept_host_srcs(true);
    test_backend_reset_counters();
    wsp_ggml_backend_t tb = test_backend_init();

    struct su_host_weights w = su_host_weights_new(cpu, 0.25f, -0.03125f, 1.0f, -0.5f);

    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, true, true);
    for (int round = 0; round < 3; round++) {
        char tag[32];
        snprintf(tag, sizeof(tag), "X7 r%d", round);
        wsp_ggml_backend_sched_reset(sched);
        struct wsp_ggml_context * ctx = su_ctx(16);
        struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 2), "x");
        struct wsp_ggml_tensor * a = su_named(wsp_ggml_mul_mat(ctx, w.wm, x), "a");
        struct wsp_ggml_tensor * b = su_named(wsp_ggml_add(ctx, a, w.wb), "b");
        struct wsp_ggml_tensor * c = su_named(wsp_ggml_mul(ctx, b, w.wb), "c");
        struct wsp_ggml_tensor * o = su_output(wsp_ggml_mul_mat(ctx, w.wm, c), "o");
        struct wsp_ggml_cgraph * gf = su_graph(ctx);
        wsp_ggml_build_forward_expand(gf, o);
        su_alloc_print(tag, sched, gf);
        du_fill(x, -1.0f + (float) round, 0.375f);
        struct wsp_ggml_tensor * outs[1] = { o };
        su_compute_print(tag, sched, gf, outs, 1);
        wsp_ggml_free(ctx);
    }
    wsp_ggml_backend_sched_free(sched);
    su_host_weights_free(&w);
    wsp_ggml_backend_free(tb);
    du_counters("X7 end");
    test_backend_reset_config();
}

static void x8(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p) {
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);
    struct wsp_ggml_context * ca = su_ctx(16);
    struct wsp_ggml_tensor * xa = su_input(wsp_ggml_new_tensor_2d(ca, WSP_GGML_TYPE_F32, 4, 3), "xa");
    struct wsp_ggml_tensor * oa = su_output(wsp_ggml_mul_mat(ca, wsp_ggml_add(ca, p, xa), xa), "oa");
    struct wsp_ggml_cgraph * ga = su_graph(ca);
    wsp_ggml_build_forward_expand(ga, oa);
    struct wsp_ggml_context * cb = su_ctx(16);
    struct wsp_ggml_tensor * xb = su_input(wsp_ggml_new_tensor_2d(cb, WSP_GGML_TYPE_F32, 4, 3), "xb");
    struct wsp_ggml_tensor * ob = su_output(wsp_ggml_scale(cb, wsp_ggml_sqr(cb, xb), 3.0f), "ob");
    struct wsp_ggml_cgraph * gb = su_graph(cb);
    wsp_ggml_build_forward_expand(gb, ob);

    DU_B("X8 alloc_a", wsp_ggml_backend_sched_alloc_graph(sched, ga));
    du_fill(xa, 0.5f, 0.25f);
    su_status("X8 compute_a", wsp_ggml_backend_sched_graph_compute(sched, ga));
    du_print_tensor("X8 oa", oa);
    du_fill(xa, -0.5f, 0.125f);
    su_status("X8 compute_b_while_a_allocated", wsp_ggml_backend_sched_graph_compute(sched, gb));
    DU_B("X8 xb_allocated", xb->buffer != NULL);
    du_print_tensor("X8 oa_after", oa);
    su_print_sched("X8", sched);
    wsp_ggml_backend_sched_reset(sched);
    DU_B("X8 alloc_b", wsp_ggml_backend_sched_alloc_graph(sched, gb));
    su_print_all("X8 b", sched, gb);
    du_fill(xb, 2.0f, -0.5f);
    struct wsp_ggml_tensor * outs[1] = { ob };
    su_compute_print("X8 b", sched, gb, outs, 1);
    wsp_ggml_free(ca);
    wsp_ggml_free(cb);
    wsp_ggml_backend_sched_free(sched);
}

static bool x9_cb(struct wsp_ggml_tensor * t, bool ask, void * user_data) {
    (void) user_data;
    if (ask) {
        printf("X9 ask %s\n", wsp_ggml_get_name(t));
        return true;
    }
    char l[64];
    snprintf(l, sizeof(l), "X9 observe %s", wsp_ggml_get_name(t));
    du_print_tensor(l, t);
    return strcmp(wsp_ggml_get_name(t), "b") != 0;
}

static void x9(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p) {
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, true, true);
    wsp_ggml_backend_sched_set_eval_callback(sched, x9_cb, NULL);
    for (int round = 0; round < 2; round++) {
        char tag[16];
        snprintf(tag, sizeof(tag), "X9 r%d", round);
        wsp_ggml_backend_sched_reset(sched);
        struct wsp_ggml_context * ctx = su_ctx(16);
        struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
        struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(ctx, p, x), "a");
        struct wsp_ggml_tensor * b = su_named(wsp_ggml_sqr(ctx, a), "b");
        struct wsp_ggml_tensor * c = su_output(wsp_ggml_sub(ctx, b, x), "c");
        struct wsp_ggml_tensor * d = su_output(wsp_ggml_mul_mat(ctx, a, x), "d");
        struct wsp_ggml_cgraph * gf = su_graph(ctx);
        wsp_ggml_build_forward_expand(gf, c);
        wsp_ggml_build_forward_expand(gf, d);
        char l[64];
        snprintf(l, sizeof(l), "%s alloc_graph", tag); DU_B(l, wsp_ggml_backend_sched_alloc_graph(sched, gf));
        su_print_assignments(tag, sched, gf);
        du_fill(x, (float) round - 0.5f, 0.25f);
        du_fill(c, 7.0f, 0.0f);
        struct wsp_ggml_tensor * outs[2] = { c, d };
        su_compute_print(tag, sched, gf, outs, 2);
        wsp_ggml_free(ctx);
    }
    wsp_ggml_backend_sched_free(sched);
    du_counters("X9 end");
}

int main(void) {
    struct su_fixture f = su_fixture_new(4, 3, 0.75f, -0.125f);
    wsp_ggml_backend_t cpu = f.cpu, tb = f.tb;
    struct wsp_ggml_tensor * p = f.p.t;
    struct su_param q = su_param_new(tb, "q", 4, 3, -0.5f, 0.0625f);

    x1(tb, cpu, p);
    x2_x3(tb, cpu, p);
    x4(tb, cpu, p, q.t);
    x5(tb, cpu, p);
    x6(tb, cpu, p);
    x8(tb, cpu, p);
    x9(tb, cpu, p);
    x7(cpu);

    su_param_free(&q);
    su_fixture_free(&f);
    printf("done\n");
    return 0;
}
