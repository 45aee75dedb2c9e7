// Scheduler overhead: wsp_ggml_backend_sched_alloc_graph + wsp_ggml_backend_sched_graph_compute
// of a large graph of cheap ops (bench_sched.h), rebuilt for every evaluation as whisper.cpp
// does for every decoded token.
//
//   sched_overhead <cpu|split> <n_nodes> <iterations> [exclusive]
//
// Prints the median and minimum nanoseconds per evaluation (reset + alloc_graph + setting the
// input + graph_compute), and n_splits / n_copies so that both libraries can be seen doing the
// same work. Under callgrind, instrumentation starts after the warm-up evaluations (run with
// --instr-atstart=no), so that counts are for a warmed-up scheduler, as it is for every
// decoded token; benches/callgrind.sh divides by the iterations.
//
// With "exclusive", the work the scheduler delegates is timed too and subtracted, leaving the
// scheduler's own time (what benches/callgrind.sh counts in instructions): the backends'
// graph_compute (the interface pointer of both backends is swapped for a timing wrapper) and
// ggml-alloc's wsp_ggml_gallocr_alloc_graph / _reserve_n (the program is linked with
// -Wl,--wrap for both, which catches the backend layer's calls into ggml-alloc but not
// ggml-alloc's calls to itself). Adds median_sched_ns, min_sched_ns and median_delegated_ns.
// The two clock reads around each delegated call cost the same for both libraries; about one
// of them per call lands in the scheduler's share.

#define _POSIX_C_SOURCE 199309L
#include "bench_sched.h"
#include "ggml-backend-impl.h"

#include <stdint.h>
#include <time.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#endif

enum { WARMUP = 2 };

// ---------------------------------------------------------------------------------------------
// timing the delegated work (exclusive mode)
// ---------------------------------------------------------------------------------------------

static uint64_t now_ns(void);

static int g_timing;          // exclusive mode: accumulate delegated time
static uint64_t g_delegated;  // nanoseconds spent in delegated work since the last reset

static enum wsp_ggml_status (*g_cpu_compute)(wsp_ggml_backend_t, struct wsp_ggml_cgraph *);
static enum wsp_ggml_status (*g_test_compute)(wsp_ggml_backend_t, struct wsp_ggml_cgraph *);
static wsp_ggml_backend_t g_cpu_backend;

static enum wsp_ggml_status timed_graph_compute(wsp_ggml_backend_t backend, struct wsp_ggml_cgraph * graph) {
    const uint64_t t0 = now_ns();
    const enum wsp_ggml_status status = (backend == g_cpu_backend ? g_cpu_compute : g_test_compute)(backend, graph);
    g_delegated += now_ns() - t0;
    return status;
}

bool __real_wsp_ggml_gallocr_alloc_graph(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph);
bool __real_wsp_ggml_gallocr_reserve_n(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph, const int * node_buffer_ids,
                                       const int * leaf_buffer_ids);
bool __wrap_wsp_ggml_gallocr_alloc_graph(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph);
bool __wrap_wsp_ggml_gallocr_reserve_n(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph, const int * node_buffer_ids,
                                       const int * leaf_buffer_ids);

bool __wrap_wsp_ggml_gallocr_alloc_graph(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph) {
    if (!g_timing) {
        return __real_wsp_ggml_gallocr_alloc_graph(galloc, graph);
    }
    const uint64_t t0 = now_ns();
    const bool ok = __real_wsp_ggml_gallocr_alloc_graph(galloc, graph);
    g_delegated += now_ns() - t0;
    return ok;
}

bool __wrap_wsp_ggml_gallocr_reserve_n(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph, const int * node_buffer_ids,
                                       const int * leaf_buffer_ids) {
    if (!g_timing) {
        return __real_wsp_ggml_gallocr_reserve_n(galloc, graph, node_buffer_ids, leaf_buffer_ids);
    }
    const uint64_t t0 = now_ns();
    const bool ok = __real_wsp_ggml_gallocr_reserve_n(galloc, graph, node_buffer_ids, leaf_buffer_ids);
    g_delegated += now_ns() - t0;
    return ok;
}

static void time_delegated_work(struct bench_sched * b) {
    g_timing = 1;
    g_cpu_backend = b->cpu;
    g_cpu_compute = b->cpu->iface.graph_compute;
    b->cpu->iface.graph_compute = timed_graph_compute;
    if (b->test) {
        g_test_compute = b->test->iface.graph_compute;
        b->test->iface.graph_compute = timed_graph_compute;
    }
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int compare_u64(const void * a, const void * b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
}

int main(int argc, char ** argv) {
    const int exclusive = argc == 5 && strcmp(argv[4], "exclusive") == 0;
    if ((argc != 4 && !exclusive) || !bench_mode_ok(argv[1]) || atoi(argv[2]) < 2 || atoi(argv[3]) < 1) {
        fprintf(stderr, "usage: %s <cpu|split> <n_nodes> <iterations> [exclusive]\n", argv[0]);
        return 2;
    }
    const int n_nodes = atoi(argv[2]);
    const int iterations = atoi(argv[3]);

    struct bench_sched b;
    bench_sched_init(&b, argv[1], n_nodes, false);
    if (exclusive) {
        time_delegated_work(&b);
    }
    uint64_t * samples = malloc(sizeof(uint64_t) * (size_t) iterations);
    uint64_t * sched_samples = malloc(sizeof(uint64_t) * (size_t) iterations);
    uint64_t * delegated_samples = malloc(sizeof(uint64_t) * (size_t) iterations);
    float result = 0.0f;
    int n_splits = 0, n_copies = 0;
    for (int it = -WARMUP; it < iterations; it++) {
        if (it == 0) {
            CALLGRIND_START_INSTRUMENTATION;
        }
        bench_sched_build(&b);
        g_delegated = 0;
        const uint64_t t0 = now_ns();
        bench_sched_eval(&b);
        if (it >= 0) {
            samples[it] = now_ns() - t0;
            sched_samples[it] = samples[it] - g_delegated;
            delegated_samples[it] = g_delegated;
        }
        n_splits = wsp_ggml_backend_sched_get_n_splits(b.sched);
        n_copies = wsp_ggml_backend_sched_get_n_copies(b.sched);
        result = bench_sched_finish(&b);
    }
    qsort(samples, (size_t) iterations, sizeof(uint64_t), compare_u64);
    printf("mode=%s nodes=%d splits=%d copies=%d result=%g median_ns=%llu min_ns=%llu", argv[1], n_nodes, n_splits,
           n_copies, (double) result, (unsigned long long) samples[iterations / 2], (unsigned long long) samples[0]);
    if (exclusive) {
        qsort(sched_samples, (size_t) iterations, sizeof(uint64_t), compare_u64);
        qsort(delegated_samples, (size_t) iterations, sizeof(uint64_t), compare_u64);
        printf(" median_sched_ns=%llu min_sched_ns=%llu median_delegated_ns=%llu", (unsigned long long) sched_samples[iterations / 2],
               (unsigned long long) sched_samples[0], (unsigned long long) delegated_samples[iterations / 2]);
    }
    printf("\n");

    free(samples);
    free(sched_samples);
    free(delegated_samples);
    bench_sched_free(&b);
    return 0;
}
