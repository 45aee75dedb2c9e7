// Heap allocations of the scheduler's hot path, counted: linked with this library built with
// the count-allocations feature, which counts every allocation its Rust code makes and exports
// the count as wsp_rs_allocation_count().
//
//   sched_allocs <cpu|split> <n_nodes> <iterations> [parallel]
//
// Rebuilds the same graph shape (bench_sched.h) for every evaluation, as whisper.cpp does for
// every token, and counts allocations across reset + alloc_graph + setting the input +
// graph_compute + reading the output. Prints one line,
//   mode=M parallel=P nodes=N copies=C first=A warmup=W steady_from=S steady_allocs=T per_eval=d0,d1,...
// where d<i> is evaluation i's count, S is the first evaluation from which every later one
// allocated nothing (-1: none) and T the allocations from evaluation W on. Exits 1 unless T
// is 0. W = 2 * n_copies: a parallel scheduler cycles through its n_copies pipeline slots,
// so the first round may still size what later rounds reuse.

#include "bench_sched.h"

#include <stdint.h>

uint64_t wsp_rs_allocation_count(void);

int main(int argc, char ** argv) {
    const bool parallel = argc == 5 && strcmp(argv[4], "parallel") == 0;
    if ((argc != 4 && !parallel) || !bench_mode_ok(argv[1]) || atoi(argv[2]) < 2 || atoi(argv[3]) < 1) {
        fprintf(stderr, "usage: %s <cpu|split> <n_nodes> <iterations> [parallel]\n", argv[0]);
        return 2;
    }
    const int n_nodes = atoi(argv[2]);
    const int iterations = atoi(argv[3]);

    struct bench_sched b;
    bench_sched_init(&b, argv[1], n_nodes, parallel);
    const int n_copies = wsp_ggml_backend_sched_get_n_copies(b.sched);
    const int warmup = 2 * n_copies;
    if (iterations <= warmup) {
        fprintf(stderr, "need more than %d iterations\n", warmup);
        return 2;
    }
    uint64_t * counts = calloc((size_t) iterations, sizeof(uint64_t));
    for (int it = 0; it < iterations; it++) {
        bench_sched_build(&b);
        const uint64_t before = wsp_rs_allocation_count();
        bench_sched_eval(&b);
        (void) bench_sched_finish(&b);
        counts[it] = wsp_rs_allocation_count() - before;
    }

    int steady_from = iterations;
    while (steady_from > 0 && counts[steady_from - 1] == 0) {
        steady_from--;
    }
    uint64_t steady_allocs = 0;
    for (int it = warmup; it < iterations; it++) {
        steady_allocs += counts[it];
    }
    printf("mode=%s parallel=%d nodes=%d copies=%d first=%llu warmup=%d steady_from=%d steady_allocs=%llu per_eval=", argv[1],
           parallel, n_nodes, n_copies, (unsigned long long) counts[0], warmup, steady_from == iterations ? -1 : steady_from,
           (unsigned long long) steady_allocs);
    for (int it = 0; it < iterations; it++) {
        printf("%s%llu", it ? "," : "", (unsigned long long) counts[it]);
    }
    printf("\n");
    free(counts);
    bench_sched_free(&b);
    return steady_allocs == 0 ? 0 : 1;
}
