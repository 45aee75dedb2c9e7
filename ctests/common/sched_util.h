// Helpers for the scheduler test programs (ctests/diff/sched_*.c, ctests/sched_behaviour/*.c):
// printing what a scheduler decided about a graph (backend of every leaf and node, the sources of every
// node as the scheduler left them, split/copy counts, compute buffer sizes) and what it computed; building
// the small contexts and buffers those programs need (the fixture: CPU, TEST, a parameter on TEST and its
// CPU twin); and the CPU-only reference computation results are compared with. All output is
// deterministic: backends are printed as "<name>@<index in the scheduler>" because several backends may
// share a name.
#pragma once

#include "diff_util.h"
#include "ggml-cpu.h"

// the graph's leaf list is only reachable through the internal header
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-impl.h"
#pragma GCC diagnostic pop

// "<name>@<index>" of a backend of the scheduler, "NULL" for none, "<name>@?" if not one of its backends
static inline const char * su_bname(wsp_ggml_backend_sched_t sched, wsp_ggml_backend_t b) {
    static char buf[8][64];
    static int  next;
    if (b == NULL) {
        return "NULL";
    }
    char * s = buf[next++ % 8];
    int idx = -1;
    for (int i = 0; i < wsp_ggml_backend_sched_get_n_backends(sched); i++) {
        if (wsp_ggml_backend_sched_get_backend(sched, i) == b) {
            idx = i;
            break;
        }
    }
    if (idx < 0) {
        snprintf(s, 64, "%s@?", wsp_ggml_backend_name(b));
    } else {
        snprintf(s, 64, "%s@%d", wsp_ggml_backend_name(b), idx);
    }
    return s;
}

// the name of the buffer (type) a tensor lives in, or "-" when it is not allocated
static inline const char * su_where(const struct wsp_ggml_tensor * t) {
    wsp_ggml_backend_buffer_t b = t->view_src ? t->view_src->buffer : t->buffer;
    if (b == NULL) {
        return t->data ? "nobuf" : "-";
    }
    return wsp_ggml_backend_buffer_name(b);
}

// backend of every leaf and node, plus the sources of every node (names as the scheduler left them:
// inputs it copied to another backend are replaced by copies named "<backend>#<name>#<copy>")
static inline void su_print_assignments(const char * tag, wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * gf) {
    for (int i = 0; i < gf->n_leafs; i++) {
        struct wsp_ggml_tensor * t = gf->leafs[i];
        printf("%s leaf %d %s buf=%s backend=%s\n", tag, i, wsp_ggml_get_name(t), su_where(t),
               su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, t)));
    }
    for (int i = 0; i < gf->n_nodes; i++) {
        struct wsp_ggml_tensor * t = gf->nodes[i];
        printf("%s node %d %s op=%s buf=%s backend=%s srcs=", tag, i, wsp_ggml_get_name(t), wsp_ggml_op_name(t->op),
               su_where(t), su_bname(sched, wsp_ggml_backend_sched_get_tensor_backend(sched, t)));
        bool first = true;
        for (int j = 0; j < WSP_GGML_MAX_SRC; j++) {
            if (t->src[j] != NULL) {
                printf("%s%s[%s]", first ? "" : ",", wsp_ggml_get_name(t->src[j]), su_where(t->src[j]));
                first = false;
            }
        }
        printf("%s\n", first ? "-" : "");
    }
}

// n_splits, n_copies, n_backends and the compute buffer size of every backend
static inline void su_print_sched(const char * tag, wsp_ggml_backend_sched_t sched) {
    printf("%s n_splits %d\n", tag, wsp_ggml_backend_sched_get_n_splits(sched));
    printf("%s n_copies %d\n", tag, wsp_ggml_backend_sched_get_n_copies(sched));
    printf("%s n_backends %d\n", tag, wsp_ggml_backend_sched_get_n_backends(sched));
    for (int i = 0; i < wsp_ggml_backend_sched_get_n_backends(sched); i++) {
        wsp_ggml_backend_t b = wsp_ggml_backend_sched_get_backend(sched, i);
        printf("%s buffer_size %s %zu\n", tag, su_bname(sched, b), wsp_ggml_backend_sched_get_buffer_size(sched, b));
    }
}

static inline void su_print_all(const char * tag, wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * gf) {
    su_print_assignments(tag, sched, gf);
    su_print_sched(tag, sched);
}

// a metadata context big enough for n tensors and one graph of up to 256 nodes
static inline struct wsp_ggml_context * su_ctx(size_t n_tensors) {
    struct wsp_ggml_init_params p = {
        /* .mem_size   = */ wsp_ggml_tensor_overhead() * n_tensors + wsp_ggml_graph_overhead_custom(256, false),
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ true,
    };
    return wsp_ggml_init(p);
}

static inline struct wsp_ggml_cgraph * su_graph(struct wsp_ggml_context * ctx) {
    return wsp_ggml_new_graph_custom(ctx, 256, false);
}

static inline struct wsp_ggml_tensor * su_named(struct wsp_ggml_tensor * t, const char * name) {
    wsp_ggml_set_name(t, name);
    return t;
}

static inline struct wsp_ggml_tensor * su_input(struct wsp_ggml_tensor * t, const char * name) {
    wsp_ggml_set_input(t);
    return su_named(t, name);
}

static inline struct wsp_ggml_tensor * su_output(struct wsp_ggml_tensor * t, const char * name) {
    wsp_ggml_set_output(t);
    return su_named(t, name);
}

// a CPU backend computing with one thread (results do not depend on the thread count, this keeps the
// programs cheap under valgrind)
static inline wsp_ggml_backend_t su_cpu(void) {
    wsp_ggml_backend_t cpu = wsp_ggml_backend_cpu_init();
    wsp_ggml_backend_cpu_set_n_threads(cpu, 1);
    return cpu;
}

// values of an F32 tensor as floats (contiguous tensors only), caller frees
static inline float * su_get(const struct wsp_ggml_tensor * t) {
    size_t n = wsp_ggml_nbytes(t);
    float * v = (float *) malloc(n ? n : 1);
    wsp_ggml_backend_tensor_get(t, v, 0, n);
    return v;
}

static inline bool su_same_bits(const struct wsp_ggml_tensor * a, const struct wsp_ggml_tensor * b) {
    if (wsp_ggml_nbytes(a) != wsp_ggml_nbytes(b)) {
        return false;
    }
    float * va = su_get(a);
    float * vb = su_get(b);
    bool same = memcmp(va, vb, wsp_ggml_nbytes(a)) == 0;
    free(va);
    free(vb);
    return same;
}

static inline void su_status(const char * label, enum wsp_ggml_status st) {
    printf("%s %d (%s)\n", label, (int) st, wsp_ggml_status_to_string(st));
}

// alloc_graph ("<tag> alloc_graph <0|1>"), then what the scheduler decided (su_print_all)
static inline bool su_alloc_print(const char * tag, wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * gf) {
    char l[256];  // room for a tag of up to 127 characters and a suffix
    snprintf(l, sizeof(l), "%s alloc_graph", tag);
    const bool ok = wsp_ggml_backend_sched_alloc_graph(sched, gf);
    DU_B(l, ok);
    su_print_all(tag, sched, gf);
    return ok;
}

// graph_compute, then its status, every output ("<tag> <output name> <values>") and the TEST counters
static inline void su_compute_print(const char * tag, wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * gf,
                                    struct wsp_ggml_tensor * const * outs, int n_outs) {
    char l[256];  // room for a tag of up to 127 characters and a suffix
    snprintf(l, sizeof(l), "%s compute", tag); su_status(l, wsp_ggml_backend_sched_graph_compute(sched, gf));
    for (int i = 0; i < n_outs; i++) {
        snprintf(l, sizeof(l), "%s %s", tag, wsp_ggml_get_name(outs[i]));
        du_print_tensor(l, outs[i]);
    }
    snprintf(l, sizeof(l), "%s counters", tag); du_counters(l);
}

// A 2-D F32 parameter alone in a buffer of a backend (on TEST it pulls the ops that read it there)
struct su_param {
    struct wsp_ggml_context * ctx;
    wsp_ggml_backend_buffer_t buf;
    struct wsp_ggml_tensor  * t;
};

static inline struct su_param su_param_alloc(wsp_ggml_backend_t backend, const char * name, int64_t ne0, int64_t ne1) {
    struct su_param p;
    p.ctx = su_ctx(1);
    p.t   = su_named(wsp_ggml_new_tensor_2d(p.ctx, WSP_GGML_TYPE_F32, ne0, ne1), name);
    p.buf = wsp_ggml_backend_alloc_ctx_tensors(p.ctx, backend);
    return p;
}

// filled with start, start + step, ...
static inline struct su_param su_param_new(wsp_ggml_backend_t backend, const char * name, int64_t ne0, int64_t ne1,
                                           float start, float step) {
    struct su_param p = su_param_alloc(backend, name, ne0, ne1);
    du_fill(p.t, start, step);
    return p;
}

// Its twin on the CPU (same name, shape and values), for the graph of a reference computation
static inline struct su_param su_param_twin(wsp_ggml_backend_t cpu, const struct su_param * of) {
    struct su_param p = su_param_alloc(cpu, wsp_ggml_get_name(of->t), of->t->ne[0], of->t->ne[1]);
    float * v = su_get(of->t);
    wsp_ggml_backend_tensor_set(p.t, v, 0, wsp_ggml_nbytes(p.t));
    free(v);
    return p;
}

static inline void su_param_free(struct su_param * p) {
    wsp_ggml_backend_buffer_free(p->buf);
    wsp_ggml_free(p->ctx);
}

// What most scheduler programs start from: the CPU backend, a TEST backend with the default configuration,
// a parameter "p" on TEST (ne0 x ne1, filled with start, start + step, ...) and its CPU twin
struct su_fixture {
    wsp_ggml_backend_t cpu, tb;
    struct su_param    p, p_cpu;
};

static inline struct su_fixture su_fixture_new(int64_t ne0, int64_t ne1, float start, float step) {
    struct su_fixture f;
    f.cpu = su_cpu();
    test_backend_reset_config();
    f.tb    = test_backend_init();
    f.p     = su_param_new(f.tb, "p", ne0, ne1, start, step);
    f.p_cpu = su_param_twin(f.cpu, &f.p);
    return f;
}

static inline void su_fixture_free(struct su_fixture * f) {
    su_param_free(&f->p_cpu);
    su_param_free(&f->p);
    wsp_ggml_backend_free(f->tb);
    wsp_ggml_backend_free(f->cpu);
}

// a scheduler over {TEST, CPU} (TEST first: preferred where it can run an op), graph size 256
static inline wsp_ggml_backend_sched_t su_sched_test_cpu(wsp_ggml_backend_t tb, wsp_ggml_backend_t cpu, bool parallel,
                                                         bool op_offload) {
    wsp_ggml_backend_t backends[2] = { tb, cpu };
    return wsp_ggml_backend_sched_new(backends, NULL, 2, 256, parallel, op_offload);
}

// Weights wm [4,4] and wb [4,1] in a host (CPU) buffer marked WEIGHTS: what op offloading copies to TEST
struct su_host_weights {
    struct wsp_ggml_context * ctx;
    wsp_ggml_backend_buffer_t buf;
    struct wsp_ggml_tensor  * wm, * wb;
};

static inline struct su_host_weights su_host_weights_new(wsp_ggml_backend_t cpu, float wm_start, float wm_step, float wb_start,
                                                         float wb_step) {
    struct su_host_weights w;
    w.ctx = su_ctx(2);
    w.wm  = su_named(wsp_ggml_new_tensor_2d(w.ctx, WSP_GGML_TYPE_F32, 4, 4), "wm");
    w.wb  = su_named(wsp_ggml_new_tensor_2d(w.ctx, WSP_GGML_TYPE_F32, 4, 1), "wb");
    w.buf = wsp_ggml_backend_alloc_ctx_tensors(w.ctx, cpu);
    wsp_ggml_backend_buffer_set_usage(w.buf, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    du_fill(w.wm, wm_start, wm_step);
    du_fill(w.wb, wb_start, wb_step);
    return w;
}

static inline void su_host_weights_free(struct su_host_weights * w) {
    wsp_ggml_backend_buffer_free(w->buf);
    wsp_ggml_free(w->ctx);
}

// The reference computation results are checked against: `gf` (built over the CPU twins of the
// parameters) allocated by a scheduler over the CPU backend alone, its inputs set by
// set_inputs(net, round), computed. The returned scheduler holds the results until it is freed.
static inline wsp_ggml_backend_sched_t su_compute_on_cpu(wsp_ggml_backend_t cpu, struct wsp_ggml_cgraph * gf,
                                                         void (*set_inputs)(void * net, int round), void * net, int round) {
    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(&cpu, NULL, 1, 256, false, false);
    wsp_ggml_backend_sched_alloc_graph(sched, gf);
    set_inputs(net, round);
    wsp_ggml_backend_sched_graph_compute(sched, gf);
    return sched;
}

struct su_net {
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph  * gf;
    struct wsp_ggml_tensor  * x, * y, * o1, * o2;
};

// The graph of the pipeline-parallel programs, with p a weight on the TEST backend:
// a = p + x; b = a * y; c = sqr(b); o1 = c - x; m = mul_mat(o1, a); o2 = m * 0.5 + y2 where y2 = y viewed [3,4]
static inline struct su_net su_make_net(struct wsp_ggml_tensor * p) {
    struct su_net n;
    n.ctx = su_ctx(32);
    n.x = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3), "x");
    n.y = su_input(wsp_ggml_new_tensor_2d(n.ctx, WSP_GGML_TYPE_F32, 4, 3), "y");
    struct wsp_ggml_tensor * a = su_named(wsp_ggml_add(n.ctx, p, n.x), "a");
    struct wsp_ggml_tensor * b = su_named(wsp_ggml_mul(n.ctx, a, n.y), "b");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_sqr(n.ctx, b), "c");
    n.o1 = su_output(wsp_ggml_sub(n.ctx, c, n.x), "o1");
    struct wsp_ggml_tensor * m = su_named(wsp_ggml_mul_mat(n.ctx, n.o1, a), "m");
    struct wsp_ggml_tensor * ms = su_named(wsp_ggml_scale(n.ctx, m, 0.5f), "ms");
    struct wsp_ggml_tensor * yv = su_named(wsp_ggml_view_2d(n.ctx, n.y, 3, 3, 4 * sizeof(float), 0), "yv");
    n.o2 = su_output(wsp_ggml_add(n.ctx, ms, yv), "o2");
    n.gf = su_graph(n.ctx);
    wsp_ggml_build_forward_expand(n.gf, n.o1);
    wsp_ggml_build_forward_expand(n.gf, n.o2);
    return n;
}

// the inputs of evaluation `round` (net: a struct su_net)
static inline void su_net_set_inputs(void * net, int round) {
    struct su_net * n = (struct su_net *) net;
    du_fill(n->x, -1.0f + 0.5f * (float) round, 0.125f);
    du_fill(n->y, 0.5f, 0.25f - 0.0625f * (float) round);
}

// whether the outputs of `n`, evaluated with the inputs of `round`, equal those of the same graph computed
// on the CPU alone (p_cpu: the CPU twin of its parameter)
static inline bool su_net_matches_cpu(const struct su_net * n, wsp_ggml_backend_t cpu, struct wsp_ggml_tensor * p_cpu, int round) {
    struct su_net ref = su_make_net(p_cpu);
    wsp_ggml_backend_sched_t sched = su_compute_on_cpu(cpu, ref.gf, su_net_set_inputs, &ref, round);
    const bool same = su_same_bits(n->o1, ref.o1) && su_same_bits(n->o2, ref.o2);
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_free(ref.ctx);
    return same;
}
