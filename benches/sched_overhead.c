// Scheduler overhead: wsp_ggml_backend_sched_alloc_graph + wsp_ggml_backend_sched_graph_compute
// of a large graph of cheap ops (tiny tensors, so that the backends' own compute is negligible),
// rebuilt for every evaluation as whisper.cpp does for every decoded token.
//
//   sched_overhead <cpu|split> <n_nodes> <iterations>
//
//   cpu    one CPU backend (whisper.cpp's CPU-only case)
//   split  the non-host TEST backend (supports ADD only) before the CPU: every other node
//          changes backend, so the graph has about n_nodes splits and as many input copies
//
// Prints the median and minimum nanoseconds per evaluation, and n_splits / n_copies so that
// both libraries can be seen doing the same work. Under callgrind, instrumentation starts after
// two warm-up evaluations (run with --instr-atstart=no), so that counts are for a warmed-up
// scheduler, as it is for every decoded token.

#define _POSIX_C_SOURCE 199309L
#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "test_backend.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#endif

enum { WARMUP = 2 };

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int compare_u64(const void * a, const void * b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
}

// A chain input -> (add w_add, mul w_mul)* n/2. In split mode w_add is a weight in a TEST
// buffer, which pulls every ADD to the TEST backend, while MUL (unsupported there) stays on
// the CPU: the backend changes at every node.
static struct wsp_ggml_cgraph * build_graph(struct wsp_ggml_context * ctx, int n_nodes, struct wsp_ggml_tensor * w_add,
                                            struct wsp_ggml_tensor * w_mul, struct wsp_ggml_tensor ** input) {
    struct wsp_ggml_cgraph * graph = wsp_ggml_new_graph_custom(ctx, (size_t) n_nodes + 16, false);
    struct wsp_ggml_tensor * x = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_F32, 4);
    wsp_ggml_set_name(x, "input");
    wsp_ggml_set_input(x);
    *input = x;
    struct wsp_ggml_tensor * cur = x;
    for (int i = 0; i < n_nodes; i++) {
        cur = (i % 2 == 0) ? wsp_ggml_add(ctx, cur, w_add) : wsp_ggml_mul(ctx, cur, w_mul);
    }
    wsp_ggml_set_output(cur);
    wsp_ggml_build_forward_expand(graph, cur);
    return graph;
}

int main(int argc, char ** argv) {
    if (argc != 4 || (strcmp(argv[1], "cpu") != 0 && strcmp(argv[1], "split") != 0)) {
        fprintf(stderr, "usage: %s <cpu|split> <n_nodes> <iterations>\n", argv[0]);
        return 2;
    }
    const int split = strcmp(argv[1], "split") == 0;
    const int n_nodes = atoi(argv[2]);
    const int iterations = atoi(argv[3]);

    wsp_ggml_backend_t cpu = wsp_ggml_backend_init_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    // One thread: the ops are tiny, and spinning workers would only add noise.
    wsp_ggml_backend_cpu_set_n_threads(cpu, 1);
    wsp_ggml_backend_t test = NULL;
    if (split) {
        const enum wsp_ggml_op ops[] = { WSP_GGML_OP_NONE, WSP_GGML_OP_ADD };
        test_backend_set_supported_ops(ops, 2);
        test = test_backend_init();
    }
    wsp_ggml_backend_t backends[2] = { test ? test : cpu, cpu };
    const int n_backends = test ? 2 : 1;

    // Weights: w_mul in a CPU buffer; w_add in a TEST buffer (split mode) or the CPU one.
    struct wsp_ggml_init_params wparams = { wsp_ggml_tensor_overhead() * 4, NULL, true };
    struct wsp_ggml_context * cpu_wctx = wsp_ggml_init(wparams);
    struct wsp_ggml_context * add_wctx = wsp_ggml_init(wparams);
    struct wsp_ggml_tensor * w_mul = wsp_ggml_new_tensor_1d(cpu_wctx, WSP_GGML_TYPE_F32, 4);
    struct wsp_ggml_tensor * w_add = wsp_ggml_new_tensor_1d(add_wctx, WSP_GGML_TYPE_F32, 4);
    wsp_ggml_backend_buffer_t cpu_wbuf = wsp_ggml_backend_alloc_ctx_tensors(cpu_wctx, cpu);
    wsp_ggml_backend_buffer_t add_wbuf = wsp_ggml_backend_alloc_ctx_tensors(add_wctx, test ? test : cpu);
    wsp_ggml_backend_buffer_set_usage(add_wbuf, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    const float ones[4] = { 1.0f, 1.0f, 1.0f, 1.0f };
    wsp_ggml_backend_tensor_set(w_mul, ones, 0, sizeof(ones));
    wsp_ggml_backend_tensor_set(w_add, ones, 0, sizeof(ones));

    wsp_ggml_backend_sched_t sched = wsp_ggml_backend_sched_new(backends, NULL, n_backends, (size_t) n_nodes + 16, false, true);

    const size_t ctx_size = wsp_ggml_tensor_overhead() * ((size_t) n_nodes + 16) + wsp_ggml_graph_overhead_custom((size_t) n_nodes + 16, false);
    void * ctx_mem = malloc(ctx_size);
    uint64_t * samples = malloc(sizeof(uint64_t) * (size_t) iterations);
    float result[4] = { 0 };
    int n_splits = 0, n_copies = 0;
    for (int it = -WARMUP; it < iterations; it++) {
        if (it == 0) {
            CALLGRIND_START_INSTRUMENTATION;
        }
        struct wsp_ggml_init_params params = { ctx_size, ctx_mem, true };
        struct wsp_ggml_context * ctx = wsp_ggml_init(params);
        struct wsp_ggml_tensor * input = NULL;
        struct wsp_ggml_cgraph * graph = build_graph(ctx, n_nodes, w_add, w_mul, &input);

        const uint64_t t0 = now_ns();
        wsp_ggml_backend_sched_reset(sched);
        if (!wsp_ggml_backend_sched_alloc_graph(sched, graph)) {
            fprintf(stderr, "alloc_graph failed\n");
            return 1;
        }
        const float x[4] = { 0.0f, 1.0f, 2.0f, 3.0f };
        wsp_ggml_backend_tensor_set(input, x, 0, sizeof(x));
        if (wsp_ggml_backend_sched_graph_compute(sched, graph) != WSP_GGML_STATUS_SUCCESS) {
            fprintf(stderr, "compute failed\n");
            return 1;
        }
        if (it >= 0) {
            samples[it] = now_ns() - t0;
        }

        wsp_ggml_backend_tensor_get(wsp_ggml_graph_node(graph, -1), result, 0, sizeof(result));
        n_splits = wsp_ggml_backend_sched_get_n_splits(sched);
        n_copies = wsp_ggml_backend_sched_get_n_copies(sched);
        wsp_ggml_free(ctx);
    }
    qsort(samples, (size_t) iterations, sizeof(uint64_t), compare_u64);
    printf("mode=%s nodes=%d splits=%d copies=%d result=%g median_ns=%llu min_ns=%llu\n", argv[1], n_nodes, n_splits,
           n_copies, (double) result[3], (unsigned long long) samples[iterations / 2], (unsigned long long) samples[0]);

    free(samples);
    free(ctx_mem);
    wsp_ggml_backend_sched_free(sched);
    wsp_ggml_backend_buffer_free(cpu_wbuf);
    wsp_ggml_backend_buffer_free(add_wbuf);
    wsp_ggml_free(cpu_wctx);
    wsp_ggml_free(add_wctx);
    wsp_ggml_backend_free(cpu);
    if (test) {
        wsp_ggml_backend_free(test);
    }
    return 0;
}
