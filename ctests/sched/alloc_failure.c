// alloc_failure (run against the library only): compute buffer allocation failures are reported, not
// fatal, and the scheduler recovers. The TEST buffer type is switched to fail every allocation
// (test_backend_set_fail_alloc); then
//   1. sched_reserve returns false, sched_alloc_graph returns false, sched_graph_compute (which allocates
//      by itself) returns WSP_GGML_STATUS_ALLOC_FAILED;
//   2. allocation re-enabled: the same scheduler reserves, allocates and computes the right result;
//   3. a graph bigger than the reserved buffers while allocation fails again: alloc_graph returns false;
//      re-enabled: alloc_graph and compute work and are right;
//   4. (sched_reserve_size, from 0.5.5) sched_reserve_size of a bigger graph after a reserve, then alloc_graph of that
//      graph: ggml-alloc freed the buffers it would have had to grow, and 0.5.5's reference crashes
//      there; the library must allocate and compute it right;
//   5. the same with parallel = true.
// "Right" means bit-identical to a CPU-only computation. Exit status 0 if every expectation holds.
#include "sched_util.h"

static int g_failures;

static void expect(bool cond, const char * what) {
    printf("%-60s %s\n", what, cond ? "ok" : "FAILED");
    if (!cond) {
        g_failures++;
    }
}

struct net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * out;
};

// a = x + p (p [8,1] broadcast, TEST); b = sqr(a) (TEST); c = mul_mat(b, x) (CPU); out = c * 0.5
static struct net make_net(struct wsp_ggml_tensor * p, int n_cols) {
    struct net n;
    n.ctx = su_ctx(16);
    n.x = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 8, n_cols), "x");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(n.ctx, n.x, p), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_sqr(n.ctx, a), "b");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_mul_mat(n.ctx, b, n.x), "c");
    n.out = su_output(wsp_ggml_scale(n.ctx, c, 0.5f), "out");
    n.gf = su_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.out);
    return n;
}

static void set_inputs(void * net, int round) {
    (void) round;
    du_fill(((struct net *) net)->x, -1.0f, 0.03125f);
}

// whether out equals that of the same graph computed on the CPU alone (pc: the CPU twin of p)
static bool matches_cpu(const struct net * n, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * pc, int n_cols) {
    struct net ref = make_net(pc, n_cols);
    wsp_ggml_backend_sched_t sched = su_compute_on_cpu(cpu, ref.gf, set_inputs, &ref, 0);
    const bool same = su_same_bits(n->out, ref.out);
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_free(ref.ctx);
    return same;
}

// alloc (unless already allocated), compute and compare with the CPU-only result
static bool eval_ok(wsp_ggml_backend_sched_t sched, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p,
                    struct wsp_ggml_tensor * pc, int n_cols) {
    wsp_ggml_backend_sched_reset(sched);
    struct net n = make_net(p, n_cols);
    bool ok = wsp_ggml_backend_sched_alloc_graph(sched, n.gf);
    if (ok) {
        set_inputs(&n, 0);
        ok = wsp_ggml_backend_sched_graph_compute(sched, n.gf) == WSP_GGML_STATUS_SUCCESS;
    }
    ok = ok && matches_cpu(&n, cpu, pc, n_cols);
    wsp_ggml_free(n.ctx);
    return ok;
}

static void scenario(const char * tag, wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p,
                     struct wsp_ggml_tensor * pc, bool parallel) {
    char what[128];
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, parallel, true);

    // 1
    test_backend_set_fail_alloc(true);
    struct net m = make_net(p, 16);
    snprintf(what, sizeof(what), "%s 1 reserve fails", tag);
    expect(!wsp_ggml_backend_sched_reserve(sched, m.gf), what);
    wsp_ggml_free(m.ctx);

    wsp_ggml_backend_sched_reset(sched);
    struct net n = make_net(p, 16);
    snprintf(what, sizeof(what), "%s 1 alloc_graph fails", tag);
    expect(!wsp_ggml_backend_sched_alloc_graph(sched, n.gf), what);
    wsp_ggml_free(n.ctx);

    wsp_ggml_backend_sched_reset(sched);
    n = make_net(p, 16);
    snprintf(what, sizeof(what), "%s 1 graph_compute returns ALLOC_FAILED", tag);
    expect(wsp_ggml_backend_sched_graph_compute(sched, n.gf) == WSP_GGML_STATUS_ALLOC_FAILED, what);
    wsp_ggml_free(n.ctx);

    // 2
    test_backend_set_fail_alloc(false);
    wsp_ggml_backend_sched_reset(sched);
    m = make_net(p, 16);
    snprintf(what, sizeof(what), "%s 2 reserve succeeds", tag);
    expect(wsp_ggml_backend_sched_reserve(sched, m.gf), what);
    wsp_ggml_free(m.ctx);
    snprintf(what, sizeof(what), "%s 2 buffers reserved", tag);
    expect(wsp_ggml_backend_sched_get_buffer_size(sched, tb) > 0 && wsp_ggml_backend_sched_get_buffer_size(sched, cpu) > 0, what);
    snprintf(what, sizeof(what), "%s 2 alloc + compute right", tag);
    expect(eval_ok(sched, cpu, p, pc, 16), what);
    snprintf(what, sizeof(what), "%s 2 smaller graph right", tag);
    expect(eval_ok(sched, cpu, p, pc, 4), what);

    // 3
    test_backend_set_fail_alloc(true);
    wsp_ggml_backend_sched_reset(sched);
    n = make_net(p, 64);
    snprintf(what, sizeof(what), "%s 3 bigger graph: alloc_graph fails", tag);
    expect(!wsp_ggml_backend_sched_alloc_graph(sched, n.gf), what);
    wsp_ggml_free(n.ctx);
    test_backend_set_fail_alloc(false);
    snprintf(what, sizeof(what), "%s 3 bigger graph after re-enabling right", tag);
    expect(eval_ok(sched, cpu, p, pc, 64), what);
    snprintf(what, sizeof(what), "%s 3 original graph again right", tag);
    expect(eval_ok(sched, cpu, p, pc, 16), what);

#ifdef WSP_GGML_BACKEND_SCHED_RESERVE_SIZE
    // 4
    wsp_ggml_backend_sched_reset(sched);
    m = make_net(p, 16);
    snprintf(what, sizeof(what), "%s 4 reserve succeeds", tag);
    expect(wsp_ggml_backend_sched_reserve(sched, m.gf), what);
    wsp_ggml_free(m.ctx);
    m = make_net(p, 128);
    size_t sizes[2] = { 0, 0 };
    wsp_ggml_backend_sched_reserve_size(sched, m.gf, sizes);
    wsp_ggml_free(m.ctx);
    snprintf(what, sizeof(what), "%s 4 reserve_size of a bigger graph measures it", tag);
    expect(sizes[0] > 0 && sizes[1] > 0, what);
    snprintf(what, sizeof(what), "%s 4 that graph right after it", tag);
    expect(eval_ok(sched, cpu, p, pc, 128), what);
#endif

    wsp_ggml_backend_sched_free(sched);
}

int main(void) {
    // the TEST-resident tensor is allocated before allocations start failing
    struct su_fixture f = su_fixture_new(8, 1, 0.5f, -0.125f);

    // the switch itself
    test_backend_set_fail_alloc(true);
    wsp_ggml_backend_buffer_t none = wsp_ggml_backend_buft_alloc_buffer(test_backend_buffer_type(), 256);
    expect(none == NULL, "switch: TEST alloc_buffer returns NULL");
    test_backend_set_fail_alloc(false);
    wsp_ggml_backend_buffer_t some = wsp_ggml_backend_buft_alloc_buffer(test_backend_buffer_type(), 256);
    expect(some != NULL, "switch: TEST alloc_buffer works again");
    wsp_ggml_backend_buffer_free(some);

    scenario("seq", f.tb, f.cpu, f.p.t, f.p_cpu.t, false);
    scenario("par", f.tb, f.cpu, f.p.t, f.p_cpu.t, true);

    su_fixture_free(&f);
    printf("%s (%d failed)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
}
