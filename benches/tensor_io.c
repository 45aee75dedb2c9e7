// Tensor data access throughput on CPU buffers, against the physical limit: the same bytes
// moved by plain memcpy/memset.
//
//   tensor_io <size_mib> <repetitions>
//
// Two tensors of size_mib MiB in a CPU buffer (allocated through the backend layer) and a
// host block of the same size, all touched beforehand. Each repetition times, in alternating
// order, an operation of the backend layer and its baseline on the same memory:
//   set     wsp_ggml_backend_tensor_set(a, host)     memcpy(a->data, host)
//   get     wsp_ggml_backend_tensor_get(a, host)     memcpy(host, a->data)
//   memset  wsp_ggml_backend_tensor_memset(a, v)     memset(a->data, v)
//   copy    wsp_ggml_backend_tensor_copy(a, b)       memcpy(b->data, a->data)
// and prints per operation the median throughput of both and the median of the per-repetition
// ratios (layer time / baseline time inverted: > 1 means faster than the baseline):
//   op=set size_mib=S layer_gbps=X baseline_gbps=Y ratio=R

#define _POSIX_C_SOURCE 200112L
#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum op { OP_SET, OP_GET, OP_MEMSET, OP_COPY, N_OPS };
static const char * const OP_NAMES[N_OPS] = { "set", "get", "memset", "copy" };

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int compare_double(const void * a, const void * b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double median(double * v, int n) {
    qsort(v, (size_t) n, sizeof(double), compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Keeps the compiler from treating the baselines' stores as dead.
static void clobber(void) {
    __asm__ volatile("" ::: "memory");
}

static uint64_t run(enum op op, int layer, struct wsp_ggml_tensor * a, struct wsp_ggml_tensor * b, void * host, size_t size, int rep) {
    const uint8_t value = (uint8_t) rep;
    const uint64_t t0 = now_ns();
    switch (op) {
        case OP_SET:
            if (layer) wsp_ggml_backend_tensor_set(a, host, 0, size); else memcpy(a->data, host, size);
            break;
        case OP_GET:
            if (layer) wsp_ggml_backend_tensor_get(a, host, 0, size); else memcpy(host, a->data, size);
            break;
        case OP_MEMSET:
            if (layer) wsp_ggml_backend_tensor_memset(a, value, 0, size); else memset(a->data, value, size);
            break;
        case OP_COPY:
            if (layer) wsp_ggml_backend_tensor_copy(a, b); else memcpy(b->data, a->data, size);
            break;
        default:
            break;
    }
    clobber();
    return now_ns() - t0;
}

int main(int argc, char ** argv) {
    if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s <size_mib> <repetitions>\n", argv[0]);
        return 2;
    }
    const int size_mib = atoi(argv[1]);
    const int reps = atoi(argv[2]);
    const size_t size = (size_t) size_mib << 20;

    struct wsp_ggml_init_params params = { wsp_ggml_tensor_overhead() * 2, NULL, true };
    struct wsp_ggml_context * ctx = wsp_ggml_init(params);
    struct wsp_ggml_tensor * a = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_I8, (int64_t) size);
    struct wsp_ggml_tensor * b = wsp_ggml_new_tensor_1d(ctx, WSP_GGML_TYPE_I8, (int64_t) size);
    wsp_ggml_backend_buffer_t buffer = wsp_ggml_backend_alloc_ctx_tensors_from_buft(ctx, wsp_ggml_backend_cpu_buffer_type());
    void * host = NULL;
    if (buffer == NULL || posix_memalign(&host, 64, size) != 0) {
        fprintf(stderr, "allocation failed\n");
        return 1;
    }
    // Touch every page once so that no measurement pays for page faults.
    memset(host, 1, size);
    memset(a->data, 2, size);
    memset(b->data, 3, size);

    double * layer_gbps = malloc(sizeof(double) * (size_t) reps);
    double * base_gbps = malloc(sizeof(double) * (size_t) reps);
    double * ratios = malloc(sizeof(double) * (size_t) reps);
    for (int op = 0; op < N_OPS; op++) {
        // One untimed round of each, then the timed repetitions.
        run((enum op) op, 1, a, b, host, size, 0);
        run((enum op) op, 0, a, b, host, size, 0);
        for (int rep = 0; rep < reps; rep++) {
            uint64_t t_layer, t_base;
            if (rep % 2 == 0) {
                t_layer = run((enum op) op, 1, a, b, host, size, rep);
                t_base = run((enum op) op, 0, a, b, host, size, rep);
            } else {
                t_base = run((enum op) op, 0, a, b, host, size, rep);
                t_layer = run((enum op) op, 1, a, b, host, size, rep);
            }
            layer_gbps[rep] = (double) size / (double) t_layer;
            base_gbps[rep] = (double) size / (double) t_base;
            ratios[rep] = (double) t_base / (double) t_layer;
        }
        printf("op=%s size_mib=%d layer_gbps=%.3f baseline_gbps=%.3f ratio=%.4f\n", OP_NAMES[op], size_mib,
               median(layer_gbps, reps), median(base_gbps, reps), median(ratios, reps));
    }

    free(layer_gbps);
    free(base_gbps);
    free(ratios);
    free(host);
    wsp_ggml_backend_buffer_free(buffer);
    wsp_ggml_free(ctx);
    return 0;
}
