// rpc_client ENDPOINT SEED ROUNDS
//
// A scheduler over [RPC, CPU] computes exactly what a scheduler over the CPU alone computes.
// The RPC device of the server at ENDPOINT is reached through the backend registry
// (examples/rpc/rpc_device.h). A small network, with weights drawn from SEED:
//   h = soft_max(mul_mat(w1, x) + b1)     w1, b1 in the remote device's buffer: runs remotely
//   o = cpy(mul_mat(w2, h), F16)          w2 in a CPU buffer: runs locally
// is evaluated ROUNDS times (0: until the process is stopped), each round with new inputs, by
// both schedulers; every output must have the same bits. Prints "round N identical" after each
// round and "PASS seed SEED" at the end; "MISMATCH ..." and exit 1 when an output differs.

#include <signal.h>

#include "rpc_device.h"
#include "sched_util.h"

enum { N_IN = 64, N_HIDDEN = 48, N_OUT = 32, N_BATCH = 8 };

// a deterministic pseudo-random value in [-1, 1) for every (seed, stream, index)
static float draw(uint32_t seed, uint32_t stream, uint32_t index) {
    uint32_t h = seed * 0x9e3779b9u ^ stream * 0x85ebca6bu ^ index * 0xc2b2ae35u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return (float) (h >> 8) / (float) (1u << 23) - 1.0f;
}

static void fill(struct wsp_ggml_tensor * t, uint32_t seed, uint32_t stream) {
    const int64_t n = wsp_ggml_nelements(t);
    float * v = (float *) malloc(n * sizeof(float));
    for (int64_t i = 0; i < n; i++) {
        v[i] = draw(seed, stream, (uint32_t) i);
    }
    wsp_ggml_backend_tensor_set(t, v, 0, n * sizeof(float));
    free(v);
}

struct net {
    struct wsp_ggml_context * remote_ctx, * local_ctx;
    wsp_ggml_backend_buffer_t remote_weights, local_weights;
    struct wsp_ggml_tensor * w1, * b1, * w2;
    wsp_ggml_backend_sched_t sched;
};

// The network's weights, w1 and b1 in a buffer of remote_buft, w2 in a CPU buffer, and a
// scheduler over backends[0..n_backends).
static struct net make_net(uint32_t seed, wsp_ggml_backend_buffer_type_t remote_buft, wsp_ggml_backend_t * backends,
                           int n_backends) {
    struct net n;
    n.remote_ctx = su_ctx(2);
    n.w1 = wsp_ggml_new_tensor_2d(n.remote_ctx, WSP_GGML_TYPE_F32, N_IN, N_HIDDEN);
    n.b1 = wsp_ggml_new_tensor_1d(n.remote_ctx, WSP_GGML_TYPE_F32, N_HIDDEN);
    n.remote_weights = wsp_ggml_backend_alloc_ctx_tensors_from_buft(n.remote_ctx, remote_buft);
    n.local_ctx = su_ctx(1);
    n.w2 = wsp_ggml_new_tensor_2d(n.local_ctx, WSP_GGML_TYPE_F32, N_HIDDEN, N_OUT);
    n.local_weights = wsp_ggml_backend_alloc_ctx_tensors_from_buft(n.local_ctx, wsp_ggml_backend_cpu_buffer_type());
    // weights: the scheduler runs the ops that use them where they are
    wsp_ggml_backend_buffer_set_usage(n.remote_weights, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    wsp_ggml_backend_buffer_set_usage(n.local_weights, WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    fill(n.w1, seed, 1);
    fill(n.b1, seed, 2);
    fill(n.w2, seed, 3);
    n.sched = wsp_ggml_backend_sched_new(backends, NULL, n_backends, 256, false, true);
    return n;
}

static void free_net(struct net * n) {
    wsp_ggml_backend_sched_free(n->sched);
    wsp_ggml_backend_buffer_free(n->remote_weights);
    wsp_ggml_backend_buffer_free(n->local_weights);
    wsp_ggml_free(n->local_ctx);
    wsp_ggml_free(n->remote_ctx);
}

// Evaluates the network on the round's inputs, with a graph built for it (as whisper.cpp does
// for every call); returns o's bytes (caller frees) and the scheduler's split count.
static uint16_t * evaluate(struct net * n, uint32_t seed, uint32_t round, int * n_splits) {
    struct wsp_ggml_context * ctx = su_ctx(16);
    struct wsp_ggml_tensor * x = su_input(wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F32, N_IN, N_BATCH), "x");
    struct wsp_ggml_tensor * h = wsp_ggml_soft_max(ctx, wsp_ggml_add(ctx, wsp_ggml_mul_mat(ctx, n->w1, x), n->b1));
    struct wsp_ggml_tensor * y = wsp_ggml_mul_mat(ctx, n->w2, h);
    struct wsp_ggml_tensor * o16 = wsp_ggml_new_tensor_2d(ctx, WSP_GGML_TYPE_F16, N_OUT, N_BATCH);
    struct wsp_ggml_tensor * o = su_output(wsp_ggml_cpy(ctx, y, o16), "o");
    struct wsp_ggml_cgraph * gf = su_graph(ctx);
    wsp_ggml_build_forward_expand(gf, o);

    wsp_ggml_backend_sched_reset(n->sched);
    if (!wsp_ggml_backend_sched_alloc_graph(n->sched, gf)) {
        fprintf(stderr, "rpc_client: the scheduler cannot allocate the graph\n");
        exit(1);
    }
    fill(x, seed, 100 + round);
    const enum wsp_ggml_status status = wsp_ggml_backend_sched_graph_compute(n->sched, gf);
    if (status != WSP_GGML_STATUS_SUCCESS) {
        fprintf(stderr, "rpc_client: compute failed: %s\n", wsp_ggml_status_to_string(status));
        exit(1);
    }
    *n_splits = wsp_ggml_backend_sched_get_n_splits(n->sched);
    uint16_t * out = (uint16_t *) malloc(wsp_ggml_nbytes(o));
    wsp_ggml_backend_tensor_get(o, out, 0, wsp_ggml_nbytes(o));
    wsp_ggml_free(ctx);
    return out;
}

int main(int argc, char ** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s ENDPOINT SEED ROUNDS\n", argv[0]);
        return 2;
    }
    const char * endpoint = argv[1];
    const uint32_t seed = (uint32_t) strtoul(argv[2], NULL, 10);
    const long rounds = strtol(argv[3], NULL, 10);
    // as in transcribe: a vanished server must give ggml-rpc's message, not a silent SIGPIPE
    signal(SIGPIPE, SIG_IGN);

    char error[256];
    wsp_ggml_backend_dev_t rpc_dev = rpc_connect_device(endpoint, error, sizeof(error));
    if (rpc_dev == NULL) {
        fprintf(stderr, "rpc_client: %s\n", error);
        return 1;
    }
    printf("device %s type %d\n", wsp_ggml_backend_dev_name(rpc_dev), (int) wsp_ggml_backend_dev_type(rpc_dev));
    wsp_ggml_backend_t rpc = wsp_ggml_backend_dev_init(rpc_dev, NULL);
    wsp_ggml_backend_t cpu_for_rpc = su_cpu();
    wsp_ggml_backend_t cpu_alone = su_cpu();

    wsp_ggml_backend_t pair[2] = { rpc, cpu_for_rpc };
    struct net remote = make_net(seed, wsp_ggml_backend_dev_buffer_type(rpc_dev), pair, 2);
    struct net local = make_net(seed, wsp_ggml_backend_get_default_buffer_type(cpu_alone), &cpu_alone, 1);

    for (long round = 0; rounds == 0 || round < rounds; round++) {
        int remote_splits = 0, local_splits = 0;
        uint16_t * got = evaluate(&remote, seed, (uint32_t) round, &remote_splits);
        uint16_t * want = evaluate(&local, seed, (uint32_t) round, &local_splits);
        const size_t n = N_OUT * N_BATCH;
        for (size_t i = 0; i < n; i++) {
            if (got[i] != want[i]) {
                printf("MISMATCH seed %u round %ld element %zu: rpc %04x cpu %04x\n", seed, round, i, got[i], want[i]);
                return 1;
            }
        }
        // the remote part really ran remotely
        if (remote_splits < 2) {
            printf("MISMATCH seed %u: the scheduler did not split between RPC and CPU\n", seed);
            return 1;
        }
        free(got);
        free(want);
        printf("round %ld identical\n", round);
        fflush(stdout);
    }
    free_net(&remote);
    free_net(&local);
    wsp_ggml_backend_free(rpc);
    wsp_ggml_backend_free(cpu_for_rpc);
    wsp_ggml_backend_free(cpu_alone);
    printf("PASS seed %u\n", seed);
    return 0;
}
