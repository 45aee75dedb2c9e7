// sched_weights: backends chosen because of where the weights live, and op offloading.
//  W1: weights in a TEST buffer and in a CPU buffer, both marked WEIGHTS; ops reading them run where
//      the weight is; ops in between follow; TEST weights leaf/node assignments, splits and copies.
//  W2: the same weights in buffers left at usage ANY (no weight rule: placement by expansion only).
//  W3: a TEST split whose node reads a CPU weight (node pinned to TEST): the weight-on-another-backend
//      rule that starts a new split.
//  O1..O5: weights in a host CPU buffer marked WEIGHTS, TEST accepts host sources; op_offload off/on,
//      TEST offload_op = ADD or MUL_MAT (with MUL_MAT supported by TEST or not), TEST not accepting host
//      sources; assignments, splits, copies of the weights, outputs and counters.
#include "sched_util.h"

static const char * usage_name(enum wsp_ggml_backend_buffer_usage u) {
    return u == WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS ? "WEIGHTS" : u == WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE ? "COMPUTE" : "ANY";
}

struct wset {
    struct wsp_ggml_context * ctx_t, * ctx_c;
    wsp_ggml_backend_buffer_t buf_t, buf_c;
    struct wsp_ggml_tensor  * wt_b, * wt_c;          // TEST
    struct wsp_ggml_tensor  * wc_b, * wc_m, * wc_c;  // CPU
};

static struct wset make_wset(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, enum wsp_ggml_backend_buffer_usage usage) {
    struct wset w;
    w.ctx_t = su_ctx(4);
    w.wt_b = su_named(wsp_ggml_new_tensor_2d(w.ctx_t, WSP_GGML_TYPE_F32, 4, 1), "wt_b");
    w.wt_c = su_named(wsp_ggml_new_tensor_2d(w.ctx_t, WSP_GGML_TYPE_F32, 4, 3), "wt_c");
    w.buf_t = wsp_ggml_backend_alloc_ctx_tensors(w.ctx_t, tb);
    w.ctx_c = su_ctx(4);
    w.wc_b = su_named(wsp_ggml_new_tensor_2d(w.ctx_c, WSP_GGML_TYPE_F32, 4, 1), "wc_b");
    w.wc_m = su_named(wsp_ggml_new_tensor_2d(w.ctx_c, WSP_GGML_TYPE_F32, 4, 4), "wc_m");
    w.wc_c = su_named(wsp_ggml_new_tensor_2d(w.ctx_c, WSP_GGML_TYPE_F32, 4, 3), "wc_c");
    w.buf_c = wsp_ggml_backend_alloc_ctx_tensors(w.ctx_c, cpu);
    wsp_ggml_backend_buffer_set_usage(w.buf_t, usage);
    wsp_ggml_backend_buffer_set_usage(w.buf_c, usage);
    du_fill(w.wt_b, 0.5f, 0.5f);
    du_fill(w.wt_c, -1.0f, 0.125f);
    du_fill(w.wc_b, 2.0f, -0.25f);
    du_fill(w.wc_m, -0.5f, 0.0625f);
    du_fill(w.wc_c, 0.25f, 0.0625f);
    printf("wset usage test=%s cpu=%s\n", usage_name(wsp_ggml_backend_buffer_get_usage(w.buf_t)),
           usage_name(wsp_ggml_backend_buffer_get_usage(w.buf_c)));
    return w;
}

static void free_wset(struct wset * w) {
    wsp_ggml_backend_buffer_free(w->buf_t);
    wsp_ggml_backend_buffer_free(w->buf_c);
    wsp_ggml_free(w->ctx_t);
    wsp_ggml_free(w->ctx_c);
}

// h1 = x + wt_b; h2 = h1 * wc_b; h3 = h2 * 3; h4 = mul_mat(wc_m, h3); h5 = h4 - wt_c; h6 = sqr(h5) (output);
// h7 = h6 + wc_c; out = h7 * 0.5 (output)
static void weights_graph(const char * tag, wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, const struct wset * w) {
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);

    struct wsp_ggml_context * ctx = su_ctx(32);
    struct wsp_ggml_tensor * x  = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    struct wsp_ggml_tensor * h1 = su_named(wsp_ggml_add(ctx, x, w->wt_b), "h1");
    struct wsp_ggml_tensor * h2 = su_named(wsp_ggml_mul(ctx, h1, w->wc_b), "h2");
    struct wsp_ggml_tensor * h3 = su_named(wsp_ggml_scale(ctx, h2, 3.0f), "h3");
    struct wsp_ggml_tensor * h4 = su_named(wsp_ggml_mul_mat(ctx, w->wc_m, h3), "h4");
    struct wsp_ggml_tensor * h5 = su_named(wsp_ggml_sub(ctx, h4, w->wt_c), "h5");
    struct wsp_ggml_tensor * h6 = su_output(wsp_ggml_sqr(ctx, h5), "h6");
    struct wsp_ggml_tensor * h7 = su_named(wsp_ggml_add(ctx, h6, w->wc_c), "h7");
    struct wsp_ggml_tensor * out = su_output(wsp_ggml_scale(ctx, h7, 0.5f), "out");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, out);

    su_alloc_print(tag, sched, gf);
    du_fill(x, -0.25f, 0.125f);
    struct wsp_ggml_tensor * outs[2] = { h6, out };
    su_compute_print(tag, sched, gf, outs, 2);
    wsp_ggml_free(ctx);
    wsp_ggml_backend_sched_free(sched);
}

// W3: a = x + wt_b (TEST, split with input x); b = a * wc_b pinned to TEST: the CPU weight wc_b forces a
// new TEST split; c = b - wt_c; out = c * 2
static void weight_new_split(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, const struct wset * w) {
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);

    struct wsp_ggml_context * ctx = su_ctx(16);
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(ctx, x, w->wt_b), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_mul(ctx, a, w->wc_b), "b");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_sub(ctx, b, w->wt_c), "c");
    struct wsp_ggml_tensor * out = su_output(wsp_ggml_scale(ctx, c, 2.0f), "out");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, out);

    test_backend_set_accept_host_srcs(true);   // TEST may be asked about b although wc_b is in host memory
    wsp_ggml_backend_sched_set_tensor_backend(sched, b, tb);
    su_alloc_print("W3", sched, gf);
    du_fill(x, 1.0f, -0.25f);
    su_compute_print("W3", sched, gf, &out, 1);
    test_backend_reset_config();
    wsp_ggml_free(ctx);
    wsp_ggml_backend_sched_free(sched);
}

// op offload: weights wm [4,4], wb [4,1] in a host CPU buffer marked WEIGHTS
// a = mul_mat(wm, x); b = a + wb; c = b * wb; d = c + wb; out = d * 2
static void offload(const char * tag, wsp_ggml_backend_t cpu, bool op_offload, enum wsp_ggml_op off_op,
                    bool test_mul_mat, bool host_srcs) {
    char l[128];
    test_backend_reset_config();
    test_backend_reset_counters();
    if (test_mul_mat) {
        const enum wsp_ggml_op ops[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD, WSP_GGML_OP_MUL, WSP_GGML_OP_SUB,
                                         WSP_GGML_OP_SCALE, WSP_GGML_OP_SQR, WSP_GGML_OP_MUL_MAT };
        test_backend_set_supported_ops(ops, 7);
    }
    const enum wsp_ggml_op offs[] = { off_op };
    test_backend_set_offload_ops(offs, 1);
    test_backend_set_accept_host_srcs(host_srcs);
    wsp_ggml_backend_t tb = test_backend_init();

    struct su_host_weights w = su_host_weights_new(cpu, 0.75f, -0.0625f, -1.0f, 0.5f);

    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, op_offload);
    struct wsp_ggml_context * ctx = su_ctx(16);
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 5), "x");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_mul_mat(ctx, w.wm, x), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_add(ctx, a, w.wb), "b");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_mul(ctx, b, w.wb), "c");
    struct wsp_ggml_tensor * d = su_named(wsp_ggml_add(ctx, c, w.wb), "d");
    struct wsp_ggml_tensor * out = su_output(wsp_ggml_scale(ctx, d, 2.0f), "out");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, out);

    su_alloc_print(tag, sched, gf);
    du_fill(x, -0.5f, 0.125f);
    su_compute_print(tag, sched, gf, &out, 1);
    // a second evaluation with other inputs (the weights are copied again)
    du_fill(x, 1.5f, -0.25f);
    snprintf(l, sizeof(l), "%s compute2", tag); su_status(l, wsp_ggml_backend_sched_graph_compute(sched, gf));
    snprintf(l, sizeof(l), "%s out2", tag); du_print_tensor(l, out);
    snprintf(l, sizeof(l), "%s counters2", tag); du_counters(l);

    wsp_ggml_free(ctx);
    wsp_ggml_backend_sched_free(sched);
    su_host_weights_free(&w);
    wsp_ggml_backend_free(tb);
    test_backend_reset_config();
}

int main(void) {
    wsp_ggml_backend_t cpu = su_cpu();
    test_backend_reset_config();
    wsp_ggml_backend_t tb = test_backend_init();

    struct wset w = make_wset(tb, cpu, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    weights_graph("W1", tb, cpu, &w);
    weight_new_split(tb, cpu, &w);
    free_wset(&w);

    w = make_wset(tb, cpu, WSP_GGML_BACKEND_BUFFER_USAGE_ANY);
    weights_graph("W2", tb, cpu, &w);
    free_wset(&w);
    wsp_ggml_backend_free(tb);

    //         tag   cpu  offload off_op                test_mul_mat host_srcs
    offload("O1", cpu, false, WSP_GGML_OP_ADD,     false, true);
    offload("O2", cpu, true,  WSP_GGML_OP_ADD,     false, true);
    offload("O3", cpu, true,  WSP_GGML_OP_MUL_MAT, true,  true);
    offload("O4", cpu, false, WSP_GGML_OP_MUL_MAT, true,  true);
    offload("O5", cpu, true,  WSP_GGML_OP_ADD,     false, false);

    wsp_ggml_backend_free(cpu);
    printf("done\n");
    return 0;
}
