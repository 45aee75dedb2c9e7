// sched_api2: what backend API 2 (whisper.rn 0.5) adds to the scheduler and the graph utilities.
//  B: sched_get_buffer_type of every backend, for {TEST, CPU} with the default buffer types, with
//     a custom host buffer type for the CPU, and for {CPU} alone.
//  R: sched_reserve_size on {TEST, CPU} and on {CPU}: the sizes per backend, that it allocates
//     nothing (TEST buffer counts), the splits it leaves; sched_reserve of the same graph then gives
//     those sizes as sched_get_buffer_size; a bigger graph's sizes (and the buffers ggml-alloc frees
//     for it); a reserve again and an evaluation.
//  S: sched_split_graph without allocating, on the CPU + TEST fixture with three op sets (each with
//     ADD and MUL, through which p is read: the CPU cannot read a TEST buffer): splits,
//     the backend of every leaf and node, no buffer allocated; then reset and a normal evaluation.
//  O: the TEST backend's graph_optimize: the calls (one per TEST split, with its nodes) made by
//     reserve_size, split_graph, reserve, alloc_graph and graph_compute; then a graph_optimize that
//     swaps the first two nodes of a split: the node order the caller's graph is left with, and
//     the outputs (equal to the CPU alone's).
//  C: compare_graph_backend(CPU, TEST) with two test nodes (in graph order and reversed): the nodes
//     the callback sees, their values, and the TEST counters (the whole graph computed at once);
//     where compare_graph_backend takes one test node (0.5.1 to 0.5.4), the first of the two.
//  P: a node TEST could run (c), set to the CPU by hand before sched_reserve: the buffer sizes show
//     whether the reservation kept the assignment (0.5.1 and 0.5.2 reset the scheduler first).
// R and O's reservations of sizes need sched_reserve_size (from 0.5.5; the library's capability
// macros say which the release has).
#include "sched_util.h"

// --- B: buffer types ---

static void print_bufts(const char * tag, wsp_ggml_backend_sched_t sched) {
    for (int i = 0; i < wsp_ggml_backend_sched_get_n_backends(sched); i++) {
        wsp_ggml_backend_t b = wsp_ggml_backend_sched_get_backend(sched, i);
        wsp_ggml_backend_buffer_type_t buft = wsp_ggml_backend_sched_get_buffer_type(sched, b);
        printf("%s buffer_type %s %s default=%d\n", tag, su_bname(sched, b), wsp_ggml_backend_buft_name(buft),
               buft == wsp_ggml_backend_get_default_buffer_type(b));
    }
}

static void buffer_types(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu) {
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, false);
    print_bufts("B default", sched);
    wsp_ggml_backend_sched_free(sched);

    struct du_custom custom;
    wsp_ggml_backend_t backends[2] = { tb, cpu };
    wsp_ggml_backend_buffer_type_t bufts[2] = { test_backend_buffer_type(), du_custom_init(&custom, "CUSTOM", true, false, 0) };
    sched = wsp_ggml_backend_sched_new(backends, bufts, 2, 256, false, false);
    print_bufts("B custom", sched);
    wsp_ggml_backend_sched_free(sched);

    sched = wsp_ggml_backend_sched_new(&cpu, NULL, 1, 256, false, false);
    print_bufts("B cpu_only", sched);
    wsp_ggml_backend_sched_free(sched);
}

// --- the graph of R, S and O ---

struct net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * out, * out2;
};

// a = x + p and b = x * p (p [8,1] broadcast; independent, both read p: on TEST); c = a - b;
// d = sqr(c); m = mul_mat(d, x) [n, n] (the CPU's); out = m * 0.5; out2 = c + p
static struct net make_net(struct wsp_ggml_tensor * p, int n_cols) {
    struct net n;
    n.ctx = su_ctx(24);
    n.x = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 8, n_cols), "x");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(n.ctx, n.x, p), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_mul(n.ctx, n.x, p), "b");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_sub(n.ctx, a, b), "c");
    struct wsp_ggml_tensor * d = su_named(wsp_ggml_sqr(n.ctx, c), "d");
    struct wsp_ggml_tensor * m = su_named(wsp_ggml_mul_mat(n.ctx, d, n.x), "m");
    n.out  = su_output(wsp_ggml_scale(n.ctx, m, 0.5f), "out");
    n.out2 = su_output(wsp_ggml_add(n.ctx, c, p), "out2");
    n.gf = su_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.out);
    wsp_ggml_build_forward_expand(n.gf, n.out2);
    return n;
}

static void set_x(void * net, int round) {
    du_fill(((struct net *) net)->x, -1.0f + 0.25f * (float) round, 1.0f / 32.0f);
}

// the node names of a graph, in its current order
static void print_order(const char * tag, struct wsp_ggml_cgraph * gf) {
    printf("%s order", tag);
    for (int i = 0; i < wsp_ggml_graph_n_nodes(gf); i++) {
        printf(" %s", wsp_ggml_get_name(wsp_ggml_graph_node(gf, i)));
    }
    printf("\n");
}

// alloc_graph, inputs, compute; the outputs, and whether they equal the CPU alone's
static void evaluate(const char * tag, wsp_ggml_backend_sched_t sched, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p,
                     struct wsp_ggml_tensor * p_cpu, int n_cols) {
    char l[128];
    struct net n = make_net(p, n_cols);
    su_alloc_print(tag, sched, n.gf);
    set_x(&n, 1);
    struct wsp_ggml_tensor * outs[2] = { n.out, n.out2 };
    su_compute_print(tag, sched, n.gf, outs, 2);

    struct net ref = make_net(p_cpu, n_cols);
    wsp_ggml_backend_sched_t ref_sched = su_compute_on_cpu(cpu, ref.gf, set_x, &ref, 1);
    snprintf(l, sizeof(l), "%s equals_cpu", tag);
    DU_B(l, su_same_bits(n.out, ref.out) && su_same_bits(n.out2, ref.out2));
    wsp_ggml_backend_sched_free(ref_sched);
    wsp_ggml_free(ref.ctx);
    wsp_ggml_free(n.ctx);
}

// --- R: reserve_size ---
#ifdef WSP_GGML_BACKEND_SCHED_RESERVE_SIZE

static void print_sizes(const char * tag, wsp_ggml_backend_sched_t sched, const size_t * sizes) {
    for (int i = 0; i < wsp_ggml_backend_sched_get_n_backends(sched); i++) {
        wsp_ggml_backend_t b = wsp_ggml_backend_sched_get_backend(sched, i);
        printf("%s size %s %zu buffer_size %zu\n", tag, su_bname(sched, b), sizes[i], wsp_ggml_backend_sched_get_buffer_size(sched, b));
    }
}

static void reserve_sizes(const char * tag, wsp_ggml_backend_t * backends, int n_backends, wsp_ggml_backend_t cpu,
                          struct wsp_ggml_tensor * p, struct wsp_ggml_tensor * p_cpu) {
    char l[128];
    size_t sizes[2] = { 0, 0 };
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, n_backends, 256, false, true);

    struct net m = make_net(p, 16);
    wsp_ggml_backend_sched_reserve_size(sched, m.gf, sizes);
    snprintf(l, sizeof(l), "%s measure16", tag); print_sizes(l, sched, sizes);
    snprintf(l, sizeof(l), "%s measure16 n_splits", tag); DU_I(l, wsp_ggml_backend_sched_get_n_splits(sched));
    snprintf(l, sizeof(l), "%s measure16 counters", tag); du_counters(l);

    // reserving the same graph allocates exactly those sizes
    snprintf(l, sizeof(l), "%s reserve16", tag); DU_B(l, wsp_ggml_backend_sched_reserve(sched, m.gf));
    bool same = true;
    for (int i = 0; i < n_backends; i++) {
        same = same && wsp_ggml_backend_sched_get_buffer_size(sched, wsp_ggml_backend_sched_get_backend(sched, i)) == sizes[i];
    }
    snprintf(l, sizeof(l), "%s reserve16 buffer_size_equals_reserve_size", tag); DU_B(l, same);
    snprintf(l, sizeof(l), "%s reserve16", tag); su_print_sched(l, sched);
    snprintf(l, sizeof(l), "%s reserve16 counters", tag); du_counters(l);

    // a bigger graph's sizes: ggml-alloc frees the buffers it would have to grow (buffer_size 0)
    struct net big = make_net(p, 40);
    wsp_ggml_backend_sched_reserve_size(sched, big.gf, sizes);
    snprintf(l, sizeof(l), "%s measure40", tag); print_sizes(l, sched, sizes);
    snprintf(l, sizeof(l), "%s measure40 counters", tag); du_counters(l);
    wsp_ggml_free(big.ctx);

    // reserve again before evaluating: ggml-alloc is left with the bigger graph's plan and no
    // buffers, and an alloc_graph right after would use them (the reference crashes)
    snprintf(l, sizeof(l), "%s again16", tag); DU_B(l, wsp_ggml_backend_sched_reserve(sched, m.gf));
    snprintf(l, sizeof(l), "%s again16", tag); su_print_sched(l, sched);
    wsp_ggml_free(m.ctx);

    wsp_ggml_backend_sched_reset(sched);
    snprintf(l, sizeof(l), "%s eval8", tag); evaluate(l, sched, cpu, p, p_cpu, 8);
    wsp_ggml_backend_sched_free(sched);
    snprintf(l, sizeof(l), "%s after_free", tag); du_counters(l);
}
#endif

// --- S: split_graph ---

static void split_only(const char * tag, wsp_ggml_backend_t cpu, struct su_fixture * f, const enum wsp_ggml_op * ops, int n_ops) {
    char l[128];
    test_backend_reset_config();
    if (ops != NULL) {
        test_backend_set_supported_ops(ops, n_ops);
    }
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(f->tb, cpu, false, true);
    struct net n = make_net(f->p.t, 6);
    wsp_ggml_backend_sched_split_graph(sched, n.gf);
    su_print_all(tag, sched, n.gf);
    snprintf(l, sizeof(l), "%s x_allocated", tag); DU_B(l, n.x->buffer != NULL);
    snprintf(l, sizeof(l), "%s counters", tag); du_counters(l);
    wsp_ggml_free(n.ctx);

    wsp_ggml_backend_sched_reset(sched);
    snprintf(l, sizeof(l), "%s eval", tag); evaluate(l, sched, cpu, f->p.t, f->p_cpu.t, 6);
    wsp_ggml_backend_sched_free(sched);
    test_backend_reset_config();
}

// --- O: graph_optimize ---

static void optimize_calls(const char * tag) {
    char l[128];
    snprintf(l, sizeof(l), "%s graph_optimize_calls", tag); DU_I(l, test_backend_graph_optimize_calls());
    test_backend_print_graph_optimize(stdout, tag);
    test_backend_reset_counters();
}

static void graph_optimize(struct su_fixture * f) {
    size_t sizes[2];
    test_backend_reset_config();
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(f->tb, f->cpu, false, true);
    struct net n = make_net(f->p.t, 6);

#ifdef WSP_GGML_BACKEND_SCHED_RESERVE_SIZE
    wsp_ggml_backend_sched_reserve_size(sched, n.gf, sizes);
    optimize_calls("O reserve_size");
    wsp_ggml_backend_sched_reset(sched);
#else
    (void) sizes;
#endif
    wsp_ggml_backend_sched_split_graph(sched, n.gf);
    optimize_calls("O split_graph");
    wsp_ggml_backend_sched_reset(sched);
    DU_B("O reserve", wsp_ggml_backend_sched_reserve(sched, n.gf));
    optimize_calls("O reserve");
    DU_B("O alloc_graph", wsp_ggml_backend_sched_alloc_graph(sched, n.gf));
    optimize_calls("O alloc_graph");
    set_x(&n, 0);
    su_status("O compute", wsp_ggml_backend_sched_graph_compute(sched, n.gf));
    optimize_calls("O compute");
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_sched_reset(sched);

    // a graph_optimize that reorders: the caller's graph keeps the order it chose
    test_backend_set_optimize_swap(true);
    struct net s = make_net(f->p.t, 6);
    print_order("O swap before", s.gf);
    evaluate("O swap", sched, f->cpu, f->p.t, f->p_cpu.t, 6);
    optimize_calls("O swap");
    wsp_ggml_backend_sched_reset(sched);
    DU_B("O swap alloc_graph", wsp_ggml_backend_sched_alloc_graph(sched, s.gf));
    print_order("O swap after", s.gf);
    optimize_calls("O swap again");
    wsp_ggml_free(s.ctx);
#ifdef WSP_GGML_BACKEND_GRAPH_OPTIMIZE_PARAMS
    // plain ggml 0.3.36: a graph_optimize that keeps each split's first node allocated until its last
    // (the compute buffers' sizes show what ggml-alloc was told)
    wsp_ggml_backend_sched_reset(sched);
    test_backend_set_optimize_swap(false);
    test_backend_set_optimize_keep(true);
    evaluate("O keep", sched, f->cpu, f->p.t, f->p_cpu.t, 6);
    optimize_calls("O keep");
#endif
    wsp_ggml_backend_sched_free(sched);
    test_backend_reset_config();
}

// --- C: compare_graph_backend with test nodes ---

struct cmp_state {
    const char * tag;
    int calls;
};

static bool cmp_cb(int node_index, struct wsp_ggml_tensor * t1, struct wsp_ggml_tensor * t2, void * user_data) {
    struct cmp_state * st = (struct cmp_state *) user_data;
    char l[128];
    st->calls++;
    printf("%s node %d %s/%s match=%d t2_buf=%s\n", st->tag, node_index, wsp_ggml_get_name(t1), wsp_ggml_get_name(t2),
           su_same_bits(t1, t2), su_where(t2));
    snprintf(l, sizeof(l), "%s node %d value", st->tag, node_index);
    du_print_tensor(l, t2);
    return true;
}

static void compare_nodes(const char * tag, wsp_ggml_backend_t cpu, wsp_ggml_backend_t tb, bool reversed) {
    char l[128];
    test_backend_reset_counters();
    struct wsp_ggml_context * ctx = su_ctx(12);
    struct wsp_ggml_tensor * x = su_named(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    struct wsp_ggml_tensor * y = su_named(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, 4, 3), "y");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(ctx, x, y), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_mul(ctx, a, x), "b");
    struct wsp_ggml_tensor * r = su_named(wsp_ggml_reshape_2d(ctx, b, 6, 2), "r");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_scale(ctx, r, 0.5f), "c");
    struct wsp_ggml_tensor * d = su_named(wsp_ggml_sqr(ctx, c), "d");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, d);
    wsp_ggml_backend_buffer_t buf = wsp_ggml_backend_alloc_ctx_tensors(ctx, cpu);
    du_fill(x, -1.25f, 0.25f);
    du_fill(y, 0.5f, 0.125f);

    struct wsp_ggml_tensor * test_nodes[2] = { reversed ? c : a, reversed ? a : c };
    struct cmp_state st = { tag, 0 };
    snprintf(l, sizeof(l), "%s result", tag);
#ifdef WSP_GGML_BACKEND_COMPARE_TEST_NODES
    DU_B(l, wsp_ggml_backend_compare_graph_backend(cpu, tb, gf, cmp_cb, &st, (const struct wsp_ggml_tensor * const *) test_nodes, 2));
#else
    DU_B(l, wsp_ggml_backend_compare_graph_backend(cpu, tb, gf, cmp_cb, &st, test_nodes[0]));
#endif
    snprintf(l, sizeof(l), "%s calls", tag); DU_I(l, st.calls);
    snprintf(l, sizeof(l), "%s d", tag); du_print_tensor(l, d);
    snprintf(l, sizeof(l), "%s counters", tag); du_counters(l);
    wsp_ggml_backend_buffer_free(buf);
    wsp_ggml_free(ctx);
}

// --- P: an assignment by hand, then sched_reserve ---

static void pinned_reserve(struct su_fixture * f) {
    test_backend_reset_config();
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(f->tb, f->cpu, false, true);
    struct net n = make_net(f->p.t, 6);
    for (int i = 0; i < wsp_ggml_graph_n_nodes(n.gf); i++) {
        struct wsp_ggml_tensor * node = wsp_ggml_graph_node(n.gf, i);
        if (node->op == WSP_GGML_OP_SUB) {
            wsp_ggml_backend_sched_set_tensor_backend(sched, node, f->cpu);
        }
    }
    DU_B("P reserve", wsp_ggml_backend_sched_reserve(sched, n.gf));
    su_print_sched("P reserve", sched);
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_sched_free(sched);
}

int main(void) {
    struct su_fixture f = su_fixture_new(8, 1, 0.5f, -0.125f);

    buffer_types(f.tb, f.cpu);

#ifdef WSP_GGML_BACKEND_SCHED_RESERVE_SIZE
    wsp_ggml_backend_t two[2] = { f.tb, f.cpu };
    reserve_sizes("R two", two, 2, f.cpu, f.p.t, f.p_cpu.t);
    reserve_sizes("R cpu_only", &f.cpu, 1, f.cpu, f.p_cpu.t, f.p_cpu.t);
#endif
    pinned_reserve(&f);

    const enum wsp_ggml_op add_mul[]     = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD, WSP_GGML_OP_MUL };
    const enum wsp_ggml_op add_mul_sqr[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD, WSP_GGML_OP_MUL, WSP_GGML_OP_SQR };
    split_only("S default", f.cpu, &f, NULL, 0);
    split_only("S add_mul", f.cpu, &f, add_mul, 3);
    split_only("S add_mul_sqr", f.cpu, &f, add_mul_sqr, 4);

    graph_optimize(&f);

    compare_nodes("C in_order", f.cpu, f.tb, false);
    compare_nodes("C reversed", f.cpu, f.tb, true);

    su_fixture_free(&f);
    printf("done\n");
    return 0;
}
