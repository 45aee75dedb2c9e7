// The scheduler workload shared by benches/sched_overhead.c and benches/sched_allocs.c: a long
// chain of cheap ops on tiny tensors, rebuilt for every evaluation as whisper.cpp does for
// every decoded token, so that what is measured is the scheduler, not the backends' compute.
//
//   cpu    one CPU backend (whisper.cpp's CPU-only case)
//   split  the non-host TEST backend (supports ADD only) before the CPU: every other node
//          changes backend, so the graph has about n_nodes splits and as many input copies
//
// Either mode may use a parallel scheduler (pipeline copies, n_copies 4).
#pragma once

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "test_backend.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bench_sched {
    int n_nodes;
    wsp_ggml_backend_t cpu, test;
    struct wsp_ggml_context * cpu_wctx, * add_wctx;
    struct wsp_ggml_tensor * w_add, * w_mul;
    wsp_ggml_backend_buffer_t cpu_wbuf, add_wbuf;
    wsp_ggml_backend_sched_t sched;
    // the graph's context lives in one block reused by every evaluation
    void * ctx_mem;
    size_t ctx_size;
    struct wsp_ggml_context * ctx;
    struct wsp_ggml_cgraph * graph;
    struct wsp_ggml_tensor * input;
};

static inline bool bench_mode_ok(const char * mode) {
    return strcmp(mode, "cpu") == 0 || strcmp(mode, "split") == 0;
}

static inline void bench_sched_init(struct bench_sched * b, const char * mode, int n_nodes, bool parallel) {
    memset(b, 0, sizeof(*b));
    b->n_nodes = n_nodes;
    b->cpu = wsp_ggml_backend_init_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    // One thread: the ops are tiny, and spinning workers would only add noise.
    wsp_ggml_backend_cpu_set_n_threads(b->cpu, 1);
    if (strcmp(mode, "split") == 0) {
        const enum wsp_ggml_op ops[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD };
        test_backend_set_supported_ops(ops, 2);
        b->test = test_backend_init();
    }
    wsp_ggml_backend_t backends[2] = { b->test ? b->test : b->cpu, b->cpu };
    const int n_backends = b->test ? 2 : 1;

    // Weights: w_mul in a CPU buffer; w_add in a TEST buffer (split mode) or a CPU one. A
    // weight in a TEST buffer pulls every ADD to the TEST backend, while MUL (unsupported
    // there) stays on the CPU: the backend changes at every node.
    struct wsp_ggml_init_params wparams = { wsp_ggml_tensor_overhead() * 4, NULL, true };
    b->cpu_wctx = wsp_ggml_init(wparams);
    b->add_wctx = wsp_ggml_init(wparams);
    b->w_mul = wsp_ggml_new_tensor_1d(b->cpu_wctx, WSP_GGML_TYPE_F32, 4);
    b->w_add = wsp_ggml_new_tensor_1d(b->add_wctx, WSP_GGML_TYPE_F32, 4);
    b->cpu_wbuf = wsp_ggml_backend_alloc_ctx_tensors(b->cpu_wctx, b->cpu);
    b->add_wbuf = wsp_ggml_backend_alloc_ctx_tensors(b->add_wctx, b->test ? b->test : b->cpu);
    wsp_ggml_backend_buffer_set_usage(b->add_wbuf, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    const float ones[4] = { 1.0f, 1.0f, 1.0f, 1.0f };
    wsp_ggml_backend_tensor_set(b->w_mul, ones, 0, sizeof(ones));
    wsp_ggml_backend_tensor_set(b->w_add, ones, 0, sizeof(ones));

    b->sched = wsp_ggml_backend_sched_new(backends, NULL, n_backends, (size_t) n_nodes + 16, parallel, true);
    if (b->sched == NULL) {
        fprintf(stderr, "sched_new failed\n");
        exit(1);
    }
    b->ctx_size = wsp_ggml_tensor_overhead() * ((size_t) n_nodes + 16) + wsp_ggml_graph_overhead_custom((size_t) n_nodes + 16, false);
    b->ctx_mem = malloc(b->ctx_size);
}

// Builds the graph anew in the reused block: input -> (add w_add, mul w_mul) * n_nodes/2.
static inline void bench_sched_build(struct bench_sched * b) {
    struct wsp_ggml_init_params params = { b->ctx_size, b->ctx_mem, true };
    b->ctx = wsp_ggml_init(params);
    b->graph = wsp_ggml_new_graph_custom(b->ctx, (size_t) b->n_nodes + 16, false);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_1d(b->ctx, WSP_GGML_TYPE_F32, 4);
    wsp_ggml_set_name(x, "input");
    wsp_ggml_set_input(x);
    b->input = x;
    struct wsp_ggml_tensor * cur = x;
    for (int i = 0; i < b->n_nodes; i++) {
        cur = (i % 2 == 0) ? wsp_ggml_add(b->ctx, cur, b->w_add) : wsp_ggml_mul(b->ctx, cur, b->w_mul);
    }
    wsp_ggml_set_output(cur);
    wsp_ggml_build_forward_expand(b->graph, cur);
}

// What the scheduler does for one evaluation: reset, alloc_graph, set the input, compute.
static inline void bench_sched_eval(struct bench_sched * b) {
    wsp_ggml_backend_sched_reset(b->sched);
    if (!wsp_ggml_backend_sched_alloc_graph(b->sched, b->graph)) {
        fprintf(stderr, "alloc_graph failed\n");
        exit(1);
    }
    const float x[4] = { 0.0f, 1.0f, 2.0f, 3.0f };
    wsp_ggml_backend_tensor_set(b->input, x, 0, sizeof(x));
    if (wsp_ggml_backend_sched_graph_compute(b->sched, b->graph) != WSP_GGML_STATUS_SUCCESS) {
        fprintf(stderr, "compute failed\n");
        exit(1);
    }
}

// The last element of the result (the same for both libraries), and the context released.
static inline float bench_sched_finish(struct bench_sched * b) {
    float result[4] = { 0 };
    wsp_ggml_backend_tensor_get(wsp_ggml_graph_node(b->graph, -1), result, 0, sizeof(result));
    wsp_ggml_free(b->ctx);
    b->ctx = NULL;
    return result[3];
}

static inline void bench_sched_free(struct bench_sched * b) {
    free(b->ctx_mem);
    wsp_ggml_backend_sched_free(b->sched);
    wsp_ggml_backend_buffer_free(b->cpu_wbuf);
    wsp_ggml_backend_buffer_free(b->add_wbuf);
    wsp_ggml_free(b->cpu_wctx);
    wsp_ggml_free(b->add_wctx);
    wsp_ggml_backend_free(b->cpu);
    if (b->test) {
        wsp_ggml_backend_free(b->test);
    }
}
