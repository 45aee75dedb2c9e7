// sched_multi: more than two backends, backend priority, a backend listed twice, and user pinning with
// set_tensor_backend.
//  M1: {TEST, TEST2, CPU} (TEST2: a second TEST backend instance, same buffer type)
//  M2: {TEST2, TEST, CPU}: the other priority order (output printed per scheduler index)
//  M3: {TEST, TEST2, CPU} with nodes and a leaf pinned to TEST2 (index 1)
//  M4: {CPU, CPU} (the same backend twice, as whisper.rn's ggml-opt use does)
//  M5: {CPU, TEST, CPU}
//  P1: {TEST, CPU}, inputs on CPU, no pins: everything on the CPU
//  P2: c pinned to TEST: the following elementwise ops follow it; e pinned to CPU
//  P3: the input leaf x pinned to TEST (allocated in the TEST compute buffer, set by the caller)
//  P4: the output pinned to CPU; then sched_reset and the pins are gone (get_tensor_backend NULL),
//      a fresh graph of the same shape allocated without pins
#include "sched_util.h"

struct net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * y, * c, * d, * e, * f, * o1, * o2;
};

// c = p + x (with p) or x + y (without); d = c * y; e = d * 0.5; f = sqr(e); o1 = reshape(f) - x;
// o2 = mul_mat(o1, c) * 0.25
static struct net make_net(struct wsp_ggml_tensor * p) {
    struct net n;
    n.ctx = su_ctx(32);
    n.x = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    n.y = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3), "y");
    n.c = su_named(p ? wsp_ggml_add(n.ctx, p, n.x) : wsp_ggml_add(n.ctx, n.x, n.y), "c");
    n.d = su_named(wsp_ggml_mul(n.ctx, n.c, n.y), "d");
    n.e = su_named(wsp_ggml_scale(n.ctx, n.d, 0.5f), "e");
    n.f = su_named(wsp_ggml_sqr(n.ctx, n.e), "f");
    struct wsp_ggml_tensor * fr = su_named(wsp_ggml_reshape_2d(n.ctx, n.f, 4, 3), "f_r");
    n.o1 = su_output(wsp_ggml_sub(n.ctx, fr, n.x), "o1");
    struct wsp_ggml_tensor * m = su_named(wsp_ggml_mul_mat(n.ctx, n.o1, n.c), "m");
    n.o2 = su_output(wsp_ggml_scale(n.ctx, m, 0.25f), "o2");
    n.gf = su_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.o1);
    wsp_ggml_build_forward_expand(n.gf, n.o2);
    return n;
}

static void eval(const char * tag, wsp_ggml_backend_sched_t sched, struct net * n) {
    char l[128];
    su_alloc_print(tag, sched, n->gf);
    snprintf(l, sizeof(l), "%s x_buffer", tag); DU_S(l, su_where(n->x));
    du_fill(n->x, -0.75f, 0.125f);
    du_fill(n->y, 1.0f, 0.25f);
    struct wsp_ggml_tensor * outs[2] = { n->o1, n->o2 };
    su_compute_print(tag, sched, n->gf, outs, 2);
}

static void three(const char * tag, wsp_ggml_backend_t b0, wsp_ggml_backend_t b1, wsp_ggml_backend_t cpu,
                  struct wsp_ggml_tensor * p, bool pin) {
    char l[128];
    test_backend_reset_counters();
    wsp_ggml_backend_t backends[3] = { b0, b1, cpu };
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, 3, 256, false, true);
    struct net n = make_net(p);
    if (pin) {
        wsp_ggml_backend_sched_set_tensor_backend(sched, n.d, b1);
        wsp_ggml_backend_sched_set_tensor_backend(sched, n.f, b1);
        wsp_ggml_backend_sched_set_tensor_backend(sched, n.y, b1);
        snprintf(l, sizeof(l), "%s pinned d", tag); DU_S(l, su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, n.d)));
        snprintf(l, sizeof(l), "%s pinned y", tag); DU_S(l, su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, n.y)));
        snprintf(l, sizeof(l), "%s unpinned e", tag); DU_S(l, su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, n.e)));
    }
    eval(tag, sched, &n);
    snprintf(l, sizeof(l), "%s y_buffer", tag); DU_S(l, su_where(n.y));
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_sched_free(sched);
}

static void twice_cpu(const char * tag, wsp_ggml_backend_t * backends, int n_backends) {
    test_backend_reset_counters();
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, n_backends, 256, false, true);
    struct net n = make_net(NULL);
    eval(tag, sched, &n);
    wsp_ggml_free(n.ctx);
    // reuse the scheduler for a second graph after a reset
    wsp_ggml_backend_sched_reset(sched);
    struct net n2 = make_net(NULL);
    char l[128];
    snprintf(l, sizeof(l), "%s second", tag);
    eval(l, sched, &n2);
    wsp_ggml_free(n2.ctx);
    wsp_ggml_backend_sched_free(sched);
}

static void pin(wsp_ggml_backend_sched_t sched, struct wsp_ggml_tensor * t, wsp_ggml_backend_t backend) {
    if (backend != NULL) {
        wsp_ggml_backend_sched_set_tensor_backend(sched, t, backend);
    }
}

// a fresh graph (without p) with c, e, x and o1 pinned to the given backends (NULL: left to the scheduler), evaluated
static struct net eval_pinned(const char * tag, wsp_ggml_backend_sched_t sched, wsp_ggml_backend_t c_on,
                              wsp_ggml_backend_t e_on, wsp_ggml_backend_t x_on, wsp_ggml_backend_t o1_on) {
    test_backend_reset_counters();
    struct net n = make_net(NULL);
    pin(sched, n.c, c_on);
    pin(sched, n.e, e_on);
    pin(sched, n.x, x_on);
    pin(sched, n.o1, o1_on);
    eval(tag, sched, &n);
    return n;
}

static void pins(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu) {
    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);

    struct net n = eval_pinned("P1", sched, NULL, NULL, NULL, NULL);
    wsp_ggml_free(n.ctx);

    wsp_ggml_backend_sched_reset(sched);
    n = eval_pinned("P2", sched, tb, cpu, NULL, NULL);
    wsp_ggml_free(n.ctx);

    wsp_ggml_backend_sched_reset(sched);
    n = eval_pinned("P3", sched, NULL, NULL, tb, NULL);
    wsp_ggml_free(n.ctx);

    wsp_ggml_backend_sched_reset(sched);
    n = eval_pinned("P4", sched, tb, NULL, NULL, cpu);
    wsp_ggml_backend_sched_reset(sched);
    DU_S("P4 after_reset c", su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, n.c)));
    DU_S("P4 after_reset o1", su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, n.o1)));
    wsp_ggml_free(n.ctx);
    wsp_ggml_backend_sched_reset(sched);
    n = make_net(NULL);
    eval("P4 fresh", sched, &n);
    wsp_ggml_free(n.ctx);

    wsp_ggml_backend_sched_free(sched);
}

int main(void) {
    struct su_fixture f = su_fixture_new(4, 3, 0.25f, 0.5f);
    wsp_ggml_backend_t cpu = f.cpu, tb1 = f.tb;
    wsp_ggml_backend_t tb2 = test_backend_init();

    three("M1", tb1, tb2, cpu, f.p.t, false);
    three("M2", tb2, tb1, cpu, f.p.t, false);
    three("M3", tb1, tb2, cpu, f.p.t, true);

    wsp_ggml_backend_t cc[2] = { cpu, cpu };
    twice_cpu("M4", cc, 2);
    wsp_ggml_backend_t ctc[3] = { cpu, tb1, cpu };
    twice_cpu("M5", ctc, 3);

    pins(tb1, cpu);

    wsp_ggml_backend_free(tb2);
    su_fixture_free(&f);
    printf("done\n");
    return 0;
}
