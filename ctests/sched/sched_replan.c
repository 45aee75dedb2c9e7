// sched_replan: one scheduler (TEST + CPU) and a graph rebuilt for every round in the same memory,
// as whisper.cpp rebuilds its decoder for every token; between rounds, what decides the plan
// changes or stays. Each round resets the scheduler, rebuilds, allocates, prints every assignment
// and the splits, computes and prints the outputs:
//   first, same, same2   the same graph three times
//   longer               x one row longer (the nodes reading it change shape, not op)
//   scale                d = scale(c) instead of sqr(c): TEST does not run SCALE
//   back                 sqr again
//   pinned               x set to TEST by hand after the reset
//   unpinned             the same graph without it
//   weights, not_weights w's CPU buffer marked as holding weights, then not (the ops reading weights
//                        go where the weights are)
//   not_input            x no longer flagged as an input
//   moved                p's TEST buffer freed and p allocated on the CPU instead
//   parallel_*           the same with a pipeline-parallel scheduler (four copies of each input)
//   switch_*             a scheduler made with WSP_GGML_SCHED_NO_ANSWER_CACHE=TEST, whose TEST stops
//                        running SQR between two rounds of the same graph: asked again, as the reference
//                        asks every time
// Graph: c = add(x, p_rows) (p_rows: the first rows of p); d = sqr(c) (or scale); e = mul(d, w);
// o = add(e, c). p is on TEST, w [COLS, 1] on the CPU.
#define _POSIX_C_SOURCE 200809L  // setenv, unsetenv
#include "sched_util.h"
#include "ggml_names.h"

#include <stdlib.h>

enum { ROWS = 3, COLS = 4 };

struct round {
    const char * tag;
    int          rows;       // of x
    bool         scale;      // d = scale(c, 0.5) instead of sqr(c)
    bool         pin_x;      // x on TEST by hand
    bool         x_input;    // x flagged as an input
    bool         weights;    // w's buffer marked as holding weights
};

struct params {
    struct wsp_ggml_tensor * p, * w;
};

struct graph {
    struct wsp_ggml_cgraph * gf;
    struct wsp_ggml_tensor * x, * o;
};

// Rebuilds the graph in `mem` (the same addresses at every round, as in whisper.cpp).
static struct graph build(void * mem, size_t mem_size, struct params w, const struct round * r,
                          struct wsp_ggml_context ** ctx) {
    struct wsp_ggml_init_params ip = { mem_size, mem, true };
    *ctx = wsp_ggml_init(ip);
    struct graph g;
    g.x = su_named(wsp_ggml_new_tensor_2d(*ctx, WSP_GGML_TYPE_F32, COLS, r->rows), "x");
    if (r->x_input) {
        wsp_ggml_set_input(g.x);
    }
    struct wsp_ggml_tensor * pv = su_named(wsp_ggml_view_2d(*ctx, w.p, COLS, r->rows, w.p->nb[1], 0), "p_rows");
    struct wsp_ggml_tensor * c = su_named(wsp_ggml_add(*ctx, g.x, pv), "c");
    struct wsp_ggml_tensor * d = su_named(r->scale ? wsp_ggml_scale(*ctx, c, 0.5f) : wsp_ggml_sqr(*ctx, c), "d");
    struct wsp_ggml_tensor * e = su_named(wsp_ggml_mul(*ctx, d, w.w), "e");
    g.o = su_output(wsp_ggml_add(*ctx, e, c), "o");
    g.gf = su_graph(*ctx);
    wsp_ggml_build_forward_expand(g.gf, g.o);
    return g;
}

static void play(wsp_ggml_backend_sched_t sched, wsp_ggml_backend_t tb, struct params w, void * mem,
                 size_t mem_size, const struct round * r) {
    char l[128];
    wsp_ggml_backend_buffer_set_usage(w.w->buffer, r->weights ? WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS
                                                             : WSP_GGML_BACKEND_BUFFER_USAGE_ANY);
    wsp_ggml_backend_sched_reset(sched);
    struct wsp_ggml_context * ctx;
    struct graph g = build(mem, mem_size, w, r, &ctx);
    if (r->pin_x) {
        // x is the first tensor the scheduler reads: its id is the one it had
        wsp_ggml_backend_sched_set_tensor_backend(sched, g.x, tb);
    }
    if (su_alloc_print(r->tag, sched, g.gf)) {
        du_fill(g.x, -0.5f, 0.125f);
        su_compute_print(r->tag, sched, g.gf, &g.o, 1);
    }
    snprintf(l, sizeof(l), "%s end", r->tag);
    du_counters(l);
    wsp_ggml_free(ctx);
}

// p [COLS, ROWS + 1] in a buffer of `backend`; its context in *ctx, its buffer in *buf
static struct wsp_ggml_tensor * alloc_p(wsp_ggml_backend_t backend, struct wsp_ggml_context * ctx,
                                        wsp_ggml_backend_buffer_t * buf) {
    struct wsp_ggml_tensor * p = wsp_ggml_get_tensor(ctx, "p");
    if (p == NULL) {
        p = su_named(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, COLS, ROWS + 1), "p");
    } else {
        p->buffer = NULL;
        p->data = NULL;
    }
    *buf = wsp_ggml_backend_alloc_ctx_tensors(ctx, backend);
    du_fill(p, 0.5f, 0.25f);
    return p;
}

int main(void) {
    wsp_ggml_backend_t cpu = su_cpu();
    const enum wsp_ggml_op ops[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD, WSP_GGML_OP_MUL, WSP_GGML_OP_SQR,
                                     WSP_GGML_OP_VIEW };
    test_backend_reset_config();
    test_backend_set_supported_ops(ops, 5);
    test_backend_reset_counters();
    wsp_ggml_backend_t tb = test_backend_init();

    const size_t mem_size = wsp_ggml_tensor_overhead() * 16 + wsp_ggml_graph_overhead_custom(256, false);
    void * mem = malloc(mem_size);
    struct wsp_ggml_context * cp = su_ctx(1);
    wsp_ggml_backend_buffer_t pb;
    struct params w;
    w.p = alloc_p(tb, cp, &pb);
    struct su_param wp = su_param_new(cpu, "w", COLS, 1, 1.0f, -0.25f);
    w.w = wp.t;

    //   tag            rows      scale  pin_x  x_input weights
    const struct round rounds[] = {
        { "first",       ROWS,     false, false, true,  false },
        { "same",        ROWS,     false, false, true,  false },
        { "same2",       ROWS,     false, false, true,  false },
        { "longer",      ROWS + 1, false, false, true,  false },
        { "scale",       ROWS + 1, true,  false, true,  false },
        { "back",        ROWS + 1, false, false, true,  false },
        { "pinned",      ROWS + 1, false, true,  true,  false },
        { "unpinned",    ROWS + 1, false, false, true,  false },
        { "not_input",   ROWS + 1, false, false, false, false },
        { "input",       ROWS + 1, false, false, true,  false },
        { "weights",     ROWS + 1, false, false, true,  true  },
        { "not_weights", ROWS + 1, false, false, true,  false },
    };
    const int n_rounds = (int) (sizeof(rounds) / sizeof(rounds[0]));

    wsp_ggml_backend_sched_t sched = su_sched_test_cpu(tb, cpu, false, true);
    for (int i = 0; i < n_rounds; i++) {
        play(sched, tb, w, mem, mem_size, &rounds[i]);
    }
    // p moves to the CPU (the same tensor, another buffer): ops reading it may run there now.
    wsp_ggml_backend_buffer_free(pb);
    w.p = alloc_p(cpu, cp, &pb);
    play(sched, tb, w, mem, mem_size, &(struct round) { "moved", ROWS + 1, false, false, true, false });
    play(sched, tb, w, mem, mem_size, &(struct round) { "moved_same", ROWS + 1, false, false, true, false });
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_backend_buffer_free(pb);
    w.p = alloc_p(tb, cp, &pb);

    sched = su_sched_test_cpu(tb, cpu, true, true);
    const struct round parallel[] = {
        { "parallel_first",  ROWS,     false, false, true, false },
        { "parallel_same",   ROWS,     false, false, true, false },
        { "parallel_scale",  ROWS,     true,  false, true, false },
        { "parallel_back",   ROWS,     false, false, true, false },
        { "parallel_longer", ROWS + 1, false, false, true, false },
    };
    for (int i = 0; i < (int) (sizeof(parallel) / sizeof(parallel[0])); i++) {
        play(sched, tb, w, mem, mem_size, &parallel[i]);
    }
    wsp_ggml_backend_sched_free(sched);

    // The switch names TEST: its answers are asked again for every graph.
    setenv(GGML_ENV("GGML_SCHED_NO_ANSWER_CACHE"), "TEST", 1);
    sched = su_sched_test_cpu(tb, cpu, false, true);
    play(sched, tb, w, mem, mem_size, &(struct round) { "switch_sqr", ROWS, false, false, true, false });
    const enum wsp_ggml_op no_sqr[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD, WSP_GGML_OP_MUL, WSP_GGML_OP_VIEW };
    test_backend_set_supported_ops(no_sqr, 4);
    play(sched, tb, w, mem, mem_size, &(struct round) { "switch_no_sqr", ROWS, false, false, true, false });
    wsp_ggml_backend_sched_free(sched);
    unsetenv(GGML_ENV("GGML_SCHED_NO_ANSWER_CACHE"));

    wsp_ggml_backend_buffer_free(pb);
    wsp_ggml_free(cp);
    su_param_free(&wp);
    free(mem);
    wsp_ggml_backend_free(tb);
    wsp_ggml_backend_free(cpu);
    test_backend_reset_config();
    printf("done\n");
    return 0;
}
