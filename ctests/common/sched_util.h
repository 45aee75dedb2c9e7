// Helpers for the scheduler test programs (ctests/diff/sched_*.c, ctests/sched_behaviour/*.c):
// printing what a scheduler decided about a graph (backend of every leaf and node, the sources of every
// node as the scheduler left them, split/copy counts, compute buffer sizes), and building the small
// contexts and buffers those programs need. All output is deterministic: backends are printed as
// "<name>@<index in the scheduler>" because several backends may share a name.
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
