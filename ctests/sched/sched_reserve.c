// sched_reserve: compute buffer sizing.
//  R1: {TEST, CPU}: fresh sizes; reserve a measure graph (n = 16); alloc + compute a smaller graph (n = 4)
//      without re-reserving; a bigger graph (n = 24) that no longer fits (re-reserve inside alloc_graph);
//      sched_reset and a structurally different graph (another backend assignment); then the measure
//      graph size again. Buffer sizes, splits, TEST buffer alloc/free counts, outputs at every step.
//  R2: {CPU} alone: the same sequence (a single buffer: ggml-alloc may reallocate by itself).
//  R3: whisper's pattern: alloc_graph on the measure graph, sched_reset, then alloc + compute the real
//      graph; reserve twice in a row; reserve a graph with nothing on TEST.
#include "sched_util.h"

struct net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * out, * out2;
};

// kind 0: a = x + p (p [8,1] broadcast); b = sqr(a); c = mul_mat(b, b) [n,n]; out = c * 0.5; out2 = b - x
// kind 1: a = x * 2; b = sqr(a); c = mul_mat(b, a); out = c + c; out2 = b + p  (out2 on TEST, rest CPU)
static struct net make_net(struct wsp_ggml_tensor * p, int n_cols, int kind) {
    struct net n;
    n.ctx = su_ctx(24);
    n.x = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 8, n_cols), "x");
    if (kind == 0) {
        struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(n.ctx, n.x, p), "a");
        struct wsp_ggml_tensor * b = su_named(wsp_ggml_sqr(n.ctx, a), "b");
        struct wsp_ggml_tensor * c = su_named(wsp_ggml_mul_mat(n.ctx, b, b), "c");
        n.out = su_output(wsp_ggml_scale(n.ctx, c, 0.5f), "out");
        n.out2 = su_output(wsp_ggml_sub(n.ctx, b, n.x), "out2");
    } else {
        struct wsp_ggml_tensor * a = su_named(wsp_ggml_scale(n.ctx, n.x, 2.0f), "a");
        struct wsp_ggml_tensor * b = su_named(wsp_ggml_sqr(n.ctx, a), "b");
        struct wsp_ggml_tensor * c = su_named(wsp_ggml_mul_mat(n.ctx, b, a), "c");
        n.out = su_output(wsp_ggml_add(n.ctx, c, c), "out");
        n.out2 = su_output(wsp_ggml_add(n.ctx, b, p), "out2");
    }
    n.gf = su_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.out);
    wsp_ggml_build_forward_expand(n.gf, n.out2);
    return n;
}

static void eval(const char * tag, wsp_ggml_backend_sched_t sched, struct wsp_ggml_tensor * p, int n_cols, int kind,
                 bool print_assign) {
    char l[128];
    struct net n = make_net(p, n_cols, kind);
    snprintf(l, sizeof(l), "%s alloc_graph", tag); DU_B(l, wsp_ggml_backend_sched_alloc_graph(sched, n.gf));
    if (print_assign) {
        su_print_assignments(tag, sched, n.gf);
    }
    su_print_sched(tag, sched);
    du_fill(n.x, -1.0f, 1.0f / 64.0f);
    struct wsp_ggml_tensor * outs[2] = { n.out, n.out2 };
    su_compute_print(tag, sched, n.gf, outs, 2);
    wsp_ggml_free(n.ctx);
}

static void reserve(const char * tag, wsp_ggml_backend_sched_t sched, struct wsp_ggml_tensor * p, int n_cols, int kind) {
    char l[128];
    struct net m = make_net(p, n_cols, kind);
    snprintf(l, sizeof(l), "%s reserve", tag); DU_B(l, wsp_ggml_backend_sched_reserve(sched, m.gf));
    su_print_sched(tag, sched);
    // after reserve the scheduler is reset: no assignments are left
    snprintf(l, sizeof(l), "%s after_reserve x_backend", tag);
    DU_S(l, su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, m.x)));
    snprintf(l, sizeof(l), "%s x_allocated", tag); DU_B(l, m.x->buffer != NULL);
    snprintf(l, sizeof(l), "%s counters", tag); du_counters(l);
    wsp_ggml_free(m.ctx);
}

static void sequence(const char * tag, wsp_ggml_backend_t * backends, int n_backends, struct wsp_ggml_tensor * p) {
    char l[128];
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, n_backends, 256, false, true);
    snprintf(l, sizeof(l), "%s fresh", tag); su_print_sched(l, sched);

    snprintf(l, sizeof(l), "%s measure16", tag); reserve(l, sched, p, 16, 0);
    snprintf(l, sizeof(l), "%s small4", tag);    eval(l, sched, p, 4, 0, true);
    wsp_ggml_backend_sched_reset(sched);
    snprintf(l, sizeof(l), "%s big24", tag);     eval(l, sched, p, 24, 0, false);
    wsp_ggml_backend_sched_reset(sched);
    snprintf(l, sizeof(l), "%s kind1", tag);     eval(l, sched, p, 6, 1, true);
    wsp_ggml_backend_sched_reset(sched);
    snprintf(l, sizeof(l), "%s again16", tag);   eval(l, sched, p, 16, 0, false);
    wsp_ggml_backend_sched_free(sched);
    snprintf(l, sizeof(l), "%s after_free", tag); du_counters(l);
}

int main(void) {
    struct su_fixture f = su_fixture_new(8, 1, 0.5f, -0.125f);
    wsp_ggml_backend_t cpu = f.cpu, tb = f.tb;
    struct wsp_ggml_tensor * p = f.p.t, * pc = f.p_cpu.t;

    wsp_ggml_backend_t two[2] = { tb, cpu };
    sequence("R1", two, 2, p);
    wsp_ggml_backend_t one[1] = { cpu };
    sequence("R2", one, 1, pc);

    // R3
    {
        test_backend_reset_counters();
        wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(two, NULL, 2, 256, false, true);
        struct net m = make_net(p, 12, 0);
        DU_B("R3 measure alloc_graph", wsp_ggml_backend_sched_alloc_graph(sched, m.gf));
        su_print_sched("R3 measure", sched);
        wsp_ggml_backend_sched_reset(sched);
        wsp_ggml_free(m.ctx);
        eval("R3 real", sched, p, 12, 0, true);
        wsp_ggml_backend_sched_reset(sched);
        reserve("R3 twice1", sched, p, 8, 0);
        reserve("R3 twice2", sched, p, 20, 0);
        reserve("R3 cpu_only", sched, pc, 20, 0);
        eval("R3 after", sched, p, 20, 0, false);
        wsp_ggml_backend_sched_free(sched);
        du_counters("R3 after_free");
    }

    su_fixture_free(&f);
    printf("done\n");
    return 0;
}
