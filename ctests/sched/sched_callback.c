// sched_callback: the scheduler's eval callback and the graph copy / backend comparison utilities.
//  E1: {TEST, CPU}, three splits (CPU, TEST, CPU); a callback that wants some nodes: every ask (true) and
//      observation (false) is printed in order with the observed values.
//  E2: the same, but the callback cancels (returns false) when observing b, in the middle of the first
//      split: the rest of that split (c) is skipped, later splits still run, compute returns SUCCESS;
//      c keeps the sentinel the caller wrote; same for a cancel at the last node of the TEST split.
//  E3: a callback that never wants a node (each split computed at once), and one that wants every node.
//  G1: graph_copy of a CPU-allocated graph (with views) to TEST: the copy's nodes, buffers and data; the
//      copy computed on TEST vs the original on the CPU; graph_copy of a TEST graph to the CPU.
//  G2: compare_graph_backend(CPU, TEST) with a callback printing node index, names and whether the two
//      results are bit-identical; then a callback that stops at node 3 (the third one it sees: node 2 is a view).
#include "sched_util.h"

// --- eval callback ---

struct cb_state {
    const char * tag;
    const char * const * want;   // nodes the callback wants to observe (NULL-terminated), NULL: all
    const char * cancel_at;      // return false when observing this node
    bool want_none;
};

static bool name_in(const char * name, const char * const * list) {
    for (int i = 0; list[i] != NULL; i++) {
        if (strcmp(list[i], name) == 0) {
            return true;
        }
    }
    return false;
}

static bool eval_cb(struct wsp_ggml_tensor * t, bool ask, void * user_data) {
    struct cb_state * st = (struct cb_state *) user_data;
    const char * name = wsp_ggml_get_name(t);
    if (ask) {
        bool want = !st->want_none && (st->want == NULL || name_in(name, st->want));
        printf("%s ask %s op=%s -> %d\n", st->tag, name, wsp_ggml_op_name(t->op), want ? 1 : 0);
        return want;
    }
    char l[128];
    snprintf(l, sizeof(l), "%s observe %s", st->tag, name);
    du_print_tensor(l, t);
    bool cont = st->cancel_at == NULL || strcmp(st->cancel_at, name) != 0;
    if (!cont) {
        printf("%s cancel at %s\n", st->tag, name);
    }
    return cont;
}

struct net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * c, * out2, * out3;
};

// CPU split: a = x * 2; b = sqr(a); c = b - x (output)
// TEST split: d = p + x; e = d * d; f = e * 0.25; fr = reshape(f); out2 = fr + p (output)
// CPU split: g = mul_mat(out2, x); out3 = g * 0.5 (output)
static struct net make_net(struct wsp_ggml_tensor * p) {
    struct net n;
    n.ctx = su_ctx(32);
    n.x = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_scale(n.ctx, n.x, 2.0f), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_sqr(n.ctx, a), "b");
    n.c = su_output(wsp_ggml_sub(n.ctx, b, n.x), "c");
    struct wsp_ggml_tensor * d = su_named(wsp_ggml_add(n.ctx, p, n.x), "d");
    struct wsp_ggml_tensor * e = su_named(wsp_ggml_mul(n.ctx, d, d), "e");
    struct wsp_ggml_tensor * f = su_named(wsp_ggml_scale(n.ctx, e, 0.25f), "f");
    struct wsp_ggml_tensor * fr = su_named(wsp_ggml_reshape_2d(n.ctx, f, 4, 3), "fr");
    n.out2 = su_output(wsp_ggml_add(n.ctx, fr, p), "out2");
    struct wsp_ggml_tensor * g = su_named(wsp_ggml_mul_mat(n.ctx, n.out2, n.x), "g");
    n.out3 = su_output(wsp_ggml_scale(n.ctx, g, 0.5f), "out3");
    n.gf = su_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.c);
    wsp_ggml_build_forward_expand(n.gf, n.out2);
    wsp_ggml_build_forward_expand(n.gf, n.out3);
    return n;
}

static void run_cb(const char * tag, wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p,
                   struct cb_state * st, bool print_assign) {
    char l[128];
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);
    wsp_ggml_backend_sched_set_eval_callback(sched, eval_cb, st);
    struct net n = make_net(p);
    snprintf(l, sizeof(l), "%s alloc_graph", tag); DU_B(l, wsp_ggml_backend_sched_alloc_graph(sched, n.gf));
    if (print_assign) {
        su_print_all(tag, sched, n.gf);
    }
    du_fill(n.x, -0.5f, 0.25f);
    // sentinels in the outputs: whatever is not computed keeps them
    du_fill(n.c, 1000.0f, 0.0f);
    du_fill(n.out2, 2000.0f, 0.0f);
    du_fill(n.out3, 3000.0f, 0.0f);
    struct wsp_ggml_tensor * outs[3] = { n.c, n.out2, n.out3 };
    su_compute_print(tag, sched, n.gf, outs, 3);

    // a second evaluation without the callback computes everything
    wsp_ggml_backend_sched_set_eval_callback(sched, NULL, NULL);
    du_fill(n.c, 1000.0f, 0.0f);
    snprintf(l, sizeof(l), "%s nocb compute", tag); su_status(l, wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    snprintf(l, sizeof(l), "%s nocb c", tag);    du_print_tensor(l, n.c);
    snprintf(l, sizeof(l), "%s nocb out3", tag); du_print_tensor(l, n.out3);
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_sched_free(sched);
}

// --- graph copy / compare ---

struct cmp_state {
    const char * tag;
    int stop_at;   // return false at this node index (-1: never)
    int calls;
};

static bool cmp_cb(int node_index, struct wsp_ggml_tensor * t1, struct wsp_ggml_tensor * t2, void * user_data) {
    struct cmp_state * st = (struct cmp_state *) user_data;
    st->calls++;
    printf("%s node %d %s/%s op=%s/%s same_layout=%d match=%d t2_buf=%s\n", st->tag, node_index, wsp_ggml_get_name(t1),
           wsp_ggml_get_name(t2), wsp_ggml_op_name(t1->op), wsp_ggml_op_name(t2->op), (t1->type == t2->type && wsp_ggml_are_same_shape(t1, t2) && wsp_ggml_are_same_stride(t1, t2)) ? 1 : 0,
           su_same_bits(t1, t2) ? 1 : 0, su_where(t2));
    char l[128];
    snprintf(l, sizeof(l), "%s node %d value", st->tag, node_index);
    du_print_tensor(l, t2);
    return node_index != st->stop_at;
}

struct cgraph_net {
    struct wsp_ggml_context * ctx;
    wsp_ggml_backend_buffer_t buf;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * y, * out;
};

// all tensors allocated in one buffer of the backend:
// a = x + y; b = a * x; r = reshape(b) [6,2]; c = r * 0.5; d = sqr(c); xv = view of x as [6,2]; out = d - xv
static struct cgraph_net make_cgraph(wsp_ggml_backend_t backend) {
    struct cgraph_net n;
    n.ctx = su_ctx(24);
    n.x = su_named(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    n.y = su_named(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3), "y");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(n.ctx, n.x, n.y), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_mul(n.ctx, a, n.x), "b");
    struct wsp_ggml_tensor * r = su_named(wsp_ggml_reshape_2d(n.ctx, b, 6, 2), "r");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_scale(n.ctx, r, 0.5f), "c");
    struct wsp_ggml_tensor * d = su_named(wsp_ggml_sqr(n.ctx, c), "d");
    struct wsp_ggml_tensor * xv = su_named(wsp_ggml_view_2d(n.ctx, n.x, 6, 2, 6 * sizeof(float), 0), "xv");
    n.out = su_named(wsp_ggml_sub(n.ctx, d, xv), "out");
    n.gf = su_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.out);
    n.buf = wsp_ggml_backend_alloc_ctx_tensors(n.ctx, backend);
    du_fill(n.x, -1.25f, 0.25f);
    du_fill(n.y, 0.5f, 0.125f);
    return n;
}

static void free_cgraph(struct cgraph_net * n) {
    wsp_ggml_backend_buffer_free(n->buf);
    wsp_ggml_free(n->ctx);
}

static void print_copy(const char * tag, struct wsp_ggml_backend_graph_copy * cp) {
    printf("%s buffer_nonnull %d ctx_allocated_nonnull %d ctx_unallocated_nonnull %d graph_nonnull %d\n", tag,
           cp->buffer != NULL, cp->ctx_allocated != NULL, cp->ctx_unallocated != NULL, cp->graph != NULL);
    if (cp->graph == NULL) {
        return;
    }
    printf("%s buffer %s size %zu\n", tag, wsp_ggml_backend_buffer_name(cp->buffer), wsp_ggml_backend_buffer_get_size(cp->buffer));
    printf("%s n_nodes %d n_leafs %d\n", tag, wsp_ggml_graph_n_nodes(cp->graph), cp->graph->n_leafs);
    for (int i = 0; i < wsp_ggml_graph_n_nodes(cp->graph); i++) {
        struct wsp_ggml_tensor * t = wsp_ggml_graph_node(cp->graph, i);
        printf("%s node %d %s op=%s buf=%s view=%d srcs=", tag, i, wsp_ggml_get_name(t), wsp_ggml_op_name(t->op),
               su_where(t), t->view_src != NULL);
        for (int j = 0; j < WSP_GGML_MAX_SRC; j++) {
            if (t->src[j]) {
                printf("%s%s[%s]", j ? "," : "", wsp_ggml_get_name(t->src[j]), su_where(t->src[j]));
            }
        }
        printf("\n");
        char l[128];
        snprintf(l, sizeof(l), "%s node %d data", tag, i);
        du_print_tensor(l, t);
    }
}

static void graph_copies(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu) {
    test_backend_reset_counters();
    struct cgraph_net n = make_cgraph(cpu);
    // compute the original once so that the copy carries computed node data too
    su_status("G1 cpu compute", wsp_ggml_backend_graph_compute(cpu, n.gf));
    du_print_tensor("G1 cpu out", n.out);

    struct wsp_ggml_backend_graph_copy cp = wsp_ggml_backend_graph_copy(tb, n.gf);
    print_copy("G1 to_test", &cp);
    du_counters("G1 after_copy");
    // recompute the copy on TEST after clearing its output
    struct wsp_ggml_tensor * out_copy = wsp_ggml_graph_node(cp.graph, -1);
    wsp_ggml_backend_tensor_memset(out_copy, 0, 0, wsp_ggml_nbytes(out_copy));
    su_status("G1 test compute", wsp_ggml_backend_graph_compute(tb, cp.graph));
    du_print_tensor("G1 test out", out_copy);
    DU_B("G1 test_equals_cpu", su_same_bits(out_copy, n.out));

    // copy of the TEST graph back to the CPU
    struct wsp_ggml_backend_graph_copy back = wsp_ggml_backend_graph_copy(cpu, cp.graph);
    print_copy("G1 back_to_cpu", &back);
    wsp_ggml_backend_graph_copy_free(back);
    wsp_ggml_backend_graph_copy_free(cp);
    du_counters("G1 after_free");
    free_cgraph(&n);
}

// compare_graph_backend is declared with 5 arguments in 0.4.0, 6 (trailing test_node) in 0.4.3 and
// 0.5.1 to 0.5.4, and 7 (test_nodes, num_test_nodes) from 0.5.5 (the library's capability macro
// says which); no test node means "compare every node" (a NULL sixth argument is ignored by a
// 0.4.0 implementation: harmless with the x86-64 and arm64 calling conventions)
static bool compare(wsp_ggml_backend_t b1, wsp_ggml_backend_t b2, struct wsp_ggml_cgraph * g, wsp_ggml_backend_eval_callback cb, void * ud) {
#ifdef WSP_GGML_BACKEND_COMPARE_TEST_NODES
    return wsp_ggml_backend_compare_graph_backend(b1, b2, g, cb, ud, NULL, 0);
#else
    return wsp_ggml_backend_compare_graph_backend(b1, b2, g, cb, ud, NULL);
#endif
}

// compare_graph_backend(first, second) over the graph allocated on `first`, the callback stopping at node
// stop_at (-1: never); with print_out the graph's output is cleared before and printed after
static void compare_case(const char * tag, wsp_ggml_backend_t first, wsp_ggml_backend_t second, int stop_at, bool print_out) {
    char l[128];
    test_backend_reset_counters();
    struct cgraph_net n = make_cgraph(first);
    if (print_out) {
        wsp_ggml_backend_tensor_memset(n.out, 0, 0, wsp_ggml_nbytes(n.out));
    }
    struct cmp_state st = { tag, stop_at, 0 };
    snprintf(l, sizeof(l), "%s result", tag); DU_B(l, compare(first, second, n.gf, cmp_cb, &st));
    snprintf(l, sizeof(l), "%s calls", tag); DU_I(l, st.calls);
    if (print_out) {
        snprintf(l, sizeof(l), "%s cpu out", tag); du_print_tensor(l, n.out);
    }
    snprintf(l, sizeof(l), "%s counters", tag); du_counters(l);
    free_cgraph(&n);
}

static void compares(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu) {
    compare_case("G2 all", cpu, tb, -1, true);
    compare_case("G2 stop", cpu, tb, 3, true);
    compare_case("G2 rev", tb, cpu, -1, false);  // TEST first, CPU second
}

int main(void) {
    struct su_fixture f = su_fixture_new(4, 3, 0.75f, -0.25f);
    wsp_ggml_backend_t cpu = f.cpu, tb = f.tb;
    struct wsp_ggml_tensor * p = f.p.t;

    static const char * const want1[] = { "b", "e", "out2", "g", NULL };
    struct cb_state e1 = { "E1", want1, NULL, false };
    run_cb("E1", tb, cpu, p, &e1, true);

    struct cb_state e2 = { "E2", want1, "b", false };
    run_cb("E2", tb, cpu, p, &e2, false);

    static const char * const want2[] = { "a", "f", NULL };
    struct cb_state e2b = { "E2b", want2, "f", false };
    run_cb("E2b", tb, cpu, p, &e2b, false);

    struct cb_state e2c = { "E2c", NULL, "a", false };
    run_cb("E2c", tb, cpu, p, &e2c, false);

    struct cb_state e3 = { "E3none", NULL, NULL, true };
    run_cb("E3none", tb, cpu, p, &e3, false);

    struct cb_state e3b = { "E3all", NULL, NULL, false };
    run_cb("E3all", tb, cpu, p, &e3b, false);

    graph_copies(tb, cpu);
    compares(tb, cpu);

    su_fixture_free(&f);
    printf("done\n");
    return 0;
}
