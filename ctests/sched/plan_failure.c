// plan_failure (run against the library only): a graph the scheduler cannot place is reported, not
// fatal (issue 42), and the scheduler stays usable. Over {TEST, CPU}:
//   bad graph   a store into a cache that lives in a TEST buffer (a CPY into a view of it, as a KV
//               cache update), which TEST does not run and the CPU cannot reach (TEST buffers are
//               not host memory): the reference aborts with "pre-allocated tensor (store) in a
//               buffer (TEST) that cannot run the operation (CPY)".
//   1. (backend API 2) sched_split_graph of it: one log line naming the tensor, its buffer, its op
//      and the backends tried; every leaf and node on a backend of the scheduler; n_splits the runs
//      of equal backends along the nodes; n_copies the scheduler's; nothing allocated or computed;
//   2. sched_reserve false; 3. sched_alloc_graph false, the same getters' checks;
//   4. sched_graph_compute FAILED and sched_graph_compute_async FAILED: nothing computed, the cache
//      unchanged. Steps 1-4 log the line once in all (the same failure met again in a row);
//   5. after sched_reset, a graph split between TEST and the CPU on the same scheduler: its outputs
//      have the bits of a fresh scheduler's and of the CPU alone's;
//   6. the bad graph again after that success: FAILED, and logged again (a new failure);
//   7. a node no backend runs (MUL_MAT with an F16 second operand: neither TEST nor the CPU
//      takes it): alloc_graph false, compute FAILED, "no backend can run tensor (...)" logged;
//      then the good graph again, right.
// Each with parallel false and true (pipeline copies). Exit status 0 if every expectation holds.
#include "sched_util.h"

static int g_failed;

// what: the expectation, printed with its outcome
static void check(bool holds, const char * tag, const char * what) {
    printf("%s %-66s %s\n", tag, what, holds ? "ok" : "FAILED");
    g_failed += !holds;
}

// The scheduler's log lines about graphs it cannot place, counted through ggml's log callback.
static struct {
    int  preallocated, unrunnable;
    char last[512];
} g_log;

static void count_plan_failures(enum wsp_ggml_log_level level, const char * text, void * user_data) {
    (void) user_data;
    if (level == WSP_GGML_LOG_LEVEL_ERROR || level == WSP_GGML_LOG_LEVEL_CONT) {
        fputs(text, stderr);
    }
    const bool preallocated = strstr(text, "pre-allocated tensor (") != NULL;
    const bool unrunnable   = strstr(text, "no backend can run tensor ") != NULL;
    if (preallocated || unrunnable) {
        g_log.preallocated += preallocated;
        g_log.unrunnable   += unrunnable;
        snprintf(g_log.last, sizeof(g_log.last), "%s", text);
    }
}

// whether the last counted line was logged by one of the scheduler's exports with this text after
// "<export>: " (the export's name carries the package's prefix)
static bool last_line_says(const char * text) {
    const char * colon = strstr(g_log.last, ": ");
    return colon != NULL && strstr(g_log.last, "ggml_backend_sched_") != NULL &&
           strstr(g_log.last, "ggml_backend_sched_") < colon && strcmp(colon + 2, text) == 0;
}

static const char * const preallocated_line =
    "pre-allocated tensor (store) in a buffer (TEST) that cannot run the operation (CPY); backends tried: TEST, CPU; "
    "the graph is not run\n";
static const char * const unrunnable_line =
    "no backend can run tensor mixed (op MUL_MAT); backends tried: TEST, CPU; the graph is not run\n";

// The memory the bad graphs are built in, again before every call that splits one (as whisper.cpp
// and llama.cpp rebuild theirs): the same tensors at the same addresses each time. (A graph split
// once must not be split again: its nodes read the split's copies since.)
struct graph_memory {
    void * bytes;
    size_t size;
};

static struct graph_memory graph_memory_new(void) {
    struct graph_memory m;
    m.size  = wsp_ggml_tensor_overhead() * 16 + wsp_ggml_graph_overhead_custom(256, false);
    m.bytes = malloc(m.size);
    return m;
}

struct bad_net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * out;
};

// the graph's metadata context, in m (the last graph built there freed first)
static struct wsp_ggml_context * rebuild_in(struct graph_memory * m, struct bad_net * last) {
    if (last->ctx != NULL) {
        wsp_ggml_free(last->ctx);
    }
    struct wsp_ggml_init_params p = { m->size, m->bytes, true };
    return wsp_ggml_init(p);
}

// a = x + p8 (TEST, p8 is there); b = sqr(a) (TEST); store = cpy(b, row 1 of cache) (cannot run);
// c = mul_mat(a, x) (CPU: TEST has no MUL_MAT); out = c * 0.5
static void make_bad(struct bad_net * n, struct graph_memory * m, struct wsp_ggml_tensor * p, struct wsp_ggml_tensor * cache) {
    n->ctx = rebuild_in(m, n);
    n->x = su_input(wsp_ggml_new_tensor_2d(n->ctx, WSP_GGML_TYPE_F32, 8, 1), "x");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(n->ctx, n->x, p), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_sqr(n->ctx, a), "b");
    struct wsp_ggml_tensor * slot = su_named(wsp_ggml_view_1d(n->ctx, cache, 8, cache->nb[1]), "slot");
    struct wsp_ggml_tensor * store = su_named(wsp_ggml_cpy(n->ctx, b, slot), "store");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_mul_mat(n->ctx, a, n->x), "c");
    n->out = su_output(wsp_ggml_scale(n->ctx, c, 0.5f), "out");
    n->gf = su_graph(n->ctx);
    wsp_ggml_build_forward_expand(n->gf, store);
    wsp_ggml_build_forward_expand(n->gf, n->out);
}

// mixed = mul_mat(x, h) with h F16: the CPU takes an F16 second operand only where the first's
// kernels want it, TEST only F32
static void make_unrunnable(struct bad_net * n, struct graph_memory * m) {
    n->ctx = rebuild_in(m, n);
    n->x = su_input(wsp_ggml_new_tensor_2d(n->ctx, WSP_GGML_TYPE_F32, 8, 2), "x");
    struct wsp_ggml_tensor * h = su_input(wsp_ggml_new_tensor_2d(n->ctx, WSP_GGML_TYPE_F16, 8, 3), "h");
    n->out = su_output(wsp_ggml_mul_mat(n->ctx, n->x, h), "mixed");
    n->gf = su_graph(n->ctx);
    wsp_ggml_build_forward_expand(n->gf, n->out);
}

// whether t has a backend, one of the scheduler's
static bool on_a_backend(wsp_ggml_backend_sched_t sched, struct wsp_ggml_tensor * t) {
    wsp_ggml_backend_t b = wsp_ggml_backend_sched_get_tensor_backend(sched, t);
    for (int i = 0; b != NULL && i < wsp_ggml_backend_sched_get_n_backends(sched); i++) {
        if (wsp_ggml_backend_sched_get_backend(sched, i) == b) {
            return true;
        }
    }
    return false;
}

static bool is_view_op(enum wsp_ggml_op op) {
    return op == WSP_GGML_OP_VIEW || op == WSP_GGML_OP_RESHAPE || op == WSP_GGML_OP_PERMUTE || op == WSP_GGML_OP_TRANSPOSE;
}

// Whether every leaf and node of gf has a backend of the scheduler, and n_splits is the number of
// runs of equal backends along the nodes that compute (the scheduler cuts nowhere else here: no
// weights; view ops run nowhere).
static bool plan_is_complete(wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * gf) {
    bool complete = true;
    for (int i = 0; i < gf->n_leafs; i++) {
        complete &= on_a_backend(sched, gf->leafs[i]);
    }
    int runs = 0;
    wsp_ggml_backend_t previous = NULL;
    for (int i = 0; i < gf->n_nodes; i++) {
        struct wsp_ggml_tensor * node = gf->nodes[i];
        complete &= on_a_backend(sched, node);
        if (is_view_op(node->op)) {
            continue;
        }
        wsp_ggml_backend_t b = wsp_ggml_backend_sched_get_tensor_backend(sched, node);
        runs += b != previous;
        previous = b;
    }
    const int n_splits = wsp_ggml_backend_sched_get_n_splits(sched);
    if (n_splits != runs) {
        printf("  n_splits %d, runs of backends %d\n", n_splits, runs);
    }
    return complete && n_splits == runs;
}

// the outputs of su_make_net over p, computed by sched (reset first), equal bitwise those of a fresh
// scheduler made alike and those of the CPU alone
static bool good_net_right(wsp_ggml_backend_sched_t sched, const struct su_fixture * f, bool parallel, int round) {
    wsp_ggml_backend_sched_reset(sched);
    struct su_net n = su_make_net(f->p.t);
    bool right = wsp_ggml_backend_sched_alloc_graph(sched, n.gf);
    su_net_set_inputs(&n, round);
    right = right && wsp_ggml_backend_sched_graph_compute(sched, n.gf) == WSP_GGML_STATUS_SUCCESS;

    wsp_ggml_backend_sched_t fresh = su_sched_test_cpu(f->tb, f->cpu, parallel, true);
    struct su_net m = su_make_net(f->p.t);
    right = right && wsp_ggml_backend_sched_alloc_graph(fresh, m.gf);
    su_net_set_inputs(&m, round);
    right = right && wsp_ggml_backend_sched_graph_compute(fresh, m.gf) == WSP_GGML_STATUS_SUCCESS;
    right = right && su_same_bits(n.o1, m.o1) && su_same_bits(n.o2, m.o2);
    right = right && su_net_matches_cpu(&n, f->cpu, f->p_cpu.t, round);
    wsp_ggml_backend_sched_free(fresh);
    wsp_ggml_free(m.ctx);
    wsp_ggml_free(n.ctx);
    return right;
}

static bool same_floats(const float * a, const float * b, size_t n) { return memcmp(a, b, n * sizeof(float)) == 0; }

// f: the backends and the good graph's parameter; p8 the bad graph's (8 elements, on TEST).
// Every call that splits gets the graph rebuilt in m after a reset, as real callers do.
static void scenario(const char * tag, struct su_fixture * f, struct su_param * p8, struct su_param * cache,
                     struct graph_memory * m, bool parallel) {
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(f->tb, f->cpu, parallel, true);
    float * cache_before = su_get(cache->t);
    const size_t cache_floats = wsp_ggml_nelements(cache->t);
    memset(&g_log, 0, sizeof(g_log));
    test_backend_reset_counters();
    struct test_backend_counters c;
    struct bad_net bad = { 0 };

#if WSP_GGML_BACKEND_API_VERSION >= 2
    // 1
    make_bad(&bad, m, p8->t, cache->t);
    wsp_ggml_backend_sched_split_graph(sched, bad.gf);
    check(g_log.preallocated == 1 && last_line_says(preallocated_line), tag, "1 split_graph logs the tensor, op, buffer, backends");
    check(plan_is_complete(sched, bad.gf), tag, "1 every tensor on a backend, n_splits its runs");
    check(wsp_ggml_backend_sched_get_n_backends(sched) == 2 && wsp_ggml_backend_sched_get_backend(sched, 0) == f->tb &&
          wsp_ggml_backend_sched_get_backend(sched, 1) == f->cpu, tag, "1 the backends as given");
    check(parallel ? wsp_ggml_backend_sched_get_n_copies(sched) > 1 : wsp_ggml_backend_sched_get_n_copies(sched) == 1,
          tag, "1 n_copies: pipeline copies only when parallel");
    test_backend_counters(&c);
    check(c.buffers_alloc == 0 && c.graph_computes == 0, tag, "1 nothing allocated or computed on TEST");
    wsp_ggml_backend_sched_reset(sched);
#endif
    // 2
    make_bad(&bad, m, p8->t, cache->t);
    check(!wsp_ggml_backend_sched_reserve(sched, bad.gf), tag, "2 reserve returns false");
    // 3
    wsp_ggml_backend_sched_reset(sched);
    make_bad(&bad, m, p8->t, cache->t);
    check(!wsp_ggml_backend_sched_alloc_graph(sched, bad.gf), tag, "3 alloc_graph returns false");
    check(plan_is_complete(sched, bad.gf), tag, "3 every tensor on a backend, n_splits its runs");
    const int n_copies_failed = wsp_ggml_backend_sched_get_n_copies(sched);
    // 4 (the input cannot be set: the graph is never allocated)
    wsp_ggml_backend_sched_reset(sched);
    make_bad(&bad, m, p8->t, cache->t);
    check(wsp_ggml_backend_sched_graph_compute(sched, bad.gf) == WSP_GGML_STATUS_FAILED, tag, "4 graph_compute returns FAILED");
    wsp_ggml_backend_sched_reset(sched);
    make_bad(&bad, m, p8->t, cache->t);
    check(wsp_ggml_backend_sched_graph_compute_async(sched, bad.gf) == WSP_GGML_STATUS_FAILED, tag,
          "4 graph_compute_async returns FAILED");
    wsp_ggml_backend_sched_synchronize(sched);
    test_backend_counters(&c);
    check(c.graph_computes == 0 && c.nodes_computed == 0, tag, "4 TEST computed nothing");
    float * cache_after = su_get(cache->t);
    check(same_floats(cache_before, cache_after, cache_floats), tag, "4 the cache is unchanged");
    free(cache_after);
    check(g_log.preallocated == 1, tag, "1-4 the failure logged once in all");
    // 5
    check(good_net_right(sched, f, parallel, 0), tag, "5 after reset, a good graph: the bits of a fresh scheduler's");
    check(wsp_ggml_backend_sched_get_n_copies(sched) == n_copies_failed, tag, "5 n_copies as during the failure");
    check(good_net_right(sched, f, parallel, 1), tag, "5 and again with new inputs");
    // 6
    test_backend_reset_counters();
    wsp_ggml_backend_sched_reset(sched);
    make_bad(&bad, m, p8->t, cache->t);
    check(wsp_ggml_backend_sched_graph_compute(sched, bad.gf) == WSP_GGML_STATUS_FAILED, tag, "6 the bad graph again: FAILED");
    check(g_log.preallocated == 2 && last_line_says(preallocated_line), tag, "6 logged again after a success");
    test_backend_counters(&c);
    check(c.graph_computes == 0, tag, "6 TEST computed nothing");
    // 7
    wsp_ggml_backend_sched_reset(sched);
    make_unrunnable(&bad, m);
    check(!wsp_ggml_backend_sched_alloc_graph(sched, bad.gf), tag, "7 a node no backend runs: alloc_graph false");
    check(plan_is_complete(sched, bad.gf), tag, "7 every tensor on a backend, n_splits its runs");
    wsp_ggml_backend_sched_reset(sched);
    make_unrunnable(&bad, m);
    check(wsp_ggml_backend_sched_graph_compute(sched, bad.gf) == WSP_GGML_STATUS_FAILED, tag, "7 graph_compute FAILED");
    check(g_log.unrunnable == 1 && last_line_says(unrunnable_line), tag, "7 logged once, naming the tensor and op");
    wsp_ggml_free(bad.ctx);
    check(good_net_right(sched, f, parallel, 2), tag, "7 then a good graph again right");

    free(cache_before);
    wsp_ggml_backend_sched_free(sched);
}

int main(void) {
    wsp_ggml_log_set(count_plan_failures, NULL);
    struct su_fixture f = su_fixture_new(4, 3, 0.25f, 0.375f);
    // the cache: 4 rows of 8 in TEST memory, the bad graph stores into row 1
    struct su_param cache = su_param_new(f.tb, "cache", 8, 4, -2.0f, 0.125f);
    struct su_param p8 = su_param_new(f.tb, "p8", 8, 1, 0.5f, -0.25f);
    struct graph_memory m = graph_memory_new();

    scenario("seq", &f, &p8, &cache, &m, false);
    scenario("par", &f, &p8, &cache, &m, true);

    free(m.bytes);
    su_param_free(&p8);
    su_param_free(&cache);
    su_fixture_free(&f);
    printf("%s (%d failed)\n", g_failed ? "FAIL" : "PASS", g_failed);
    return g_failed ? 1 : 0;
}
