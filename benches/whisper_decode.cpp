// whisper's decoder token by token, the per-token scheduler work a user of whisper.rn pays:
// whisper.cpp (unchanged) builds its decoder graph for every token and runs it through its
// scheduler (sched_alloc_graph, sched_graph_compute, sched_reset), here over the CPU alone,
// over the ACCEL fixture and the CPU (ctests/fixtures/accel_fixture.h), or, in a build with a
// built-in GPU backend (whisper_decode-metal: whisper.rn's Metal C++ over the stand-in of
// ctests/metal; whisper_decode-vulkan: ggml's Vulkan backend), over that backend and the CPU.
//
//   whisper_decode <model> <cpu|accel:OPS|gpu> <tokens> [exclusive|warm]
//
// The start-of-transcript prompt is decoded, then WARMUP tokens, then <tokens> timed ones, each
// the argmax of the previous logits (greedy). The encoder is not run: the cross-attention keys
// and values keep the zeros they were created with, which changes no graph and no schedule, and
// the tokens are the same for both backend layers (printed as a hash to compare). Under
// callgrind, instrumentation starts at the first timed token (run with --instr-atstart=no;
// benches/callgrind.sh).
//
// Prints: mode, tokens, the splits of the decoder graph (min and max over the timed tokens),
// the supports_op/offload_op calls the layer made per timed token to all the scheduler's devices
// (counted with "exclusive" only, 0 otherwise), the token hash and the median and minimum
// nanoseconds per token of the whole whisper_decode call and of the scheduler's three calls.
// With "exclusive", the work the scheduler delegates is timed and subtracted as in
// benches/sched_overhead.c: every backend's graph_compute, synchronize and graph_optimize (their interface
// pointers swapped for timing wrappers) and ggml-alloc's entry points (-Wl,--wrap); adds median_sched_ns,
// min_sched_ns, median_delegated_ns and median_alloc_own_ns (the share of the scheduler's own time
// spent in sched_alloc_graph: planning); the devices' supports_op and offload_op are swapped
// for counting wrappers. "warm" (CPU alone) is "exclusive" with each token's graph planned once
// untimed (sched_alloc_graph, sched_reset) before the timed sched_alloc_graph: the scheduler's
// time with the caches warm, against its time after the compute has evicted them. whisper.cpp's calls of the three scheduler functions go
// through -Wl,--wrap wrappers that time them and read the split count.

#include "accel_fixture.h"
#include "ggml-alloc.h"
#include "ggml-backend-impl.h"  // wsp_ggml_backend_register, the backend struct
#include "whisper.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#endif

namespace {

constexpr int WARMUP = 2;
constexpr int MAX_BACKENDS = 4;

uint64_t now_ns() {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

bool g_exclusive;        // time the delegated work
bool g_warm;             // time sched_alloc_graph with warm caches
uint64_t g_sched_ns;     // in the scheduler's three calls since the last token started
uint64_t g_delegated_ns; // in delegated work since the last token started
uint64_t g_alloc_own_ns; // of g_sched_ns - g_delegated_ns: in sched_alloc_graph, the rest in graph_compute and reset
int g_splits = -1;       // of the last graph allocated

// the backends' own graph_compute, synchronize (and graph_optimize), swapped for timing wrappers
struct swapped_backend {
    wsp_ggml_backend_t owner;
    enum wsp_ggml_status (*graph_compute)(wsp_ggml_backend_t, struct wsp_ggml_cgraph *);
    void (*synchronize)(wsp_ggml_backend_t);
    void (*graph_optimize)(wsp_ggml_backend_t, struct wsp_ggml_cgraph *);
};
swapped_backend g_swapped[MAX_BACKENDS];
int g_n_swapped;

// The original pointers of `owner` among the first `n` entries of `table`.
template <typename Entry, typename Owner> const Entry & original(const Entry * table, int n, Owner owner) {
    for (int i = 0; i < n; i++) {
        if (table[i].owner == owner) {
            return table[i];
        }
    }
    std::fprintf(stderr, "a swapped call from an unknown backend or device\n");
    std::abort();
}

const swapped_backend & swapped(wsp_ggml_backend_t backend) {
    return original(g_swapped, g_n_swapped, backend);
}

enum wsp_ggml_status timed_graph_compute(wsp_ggml_backend_t backend, struct wsp_ggml_cgraph * graph) {
    const uint64_t t0 = now_ns();
    const enum wsp_ggml_status status = swapped(backend).graph_compute(backend, graph);
    g_delegated_ns += now_ns() - t0;
    return status;
}

// a GPU's graph_compute may only queue the work (Vulkan's does): the wait for it is the backend's
void timed_synchronize(wsp_ggml_backend_t backend) {
    const uint64_t t0 = now_ns();
    swapped(backend).synchronize(backend);
    g_delegated_ns += now_ns() - t0;
}

[[maybe_unused]] void timed_graph_optimize(wsp_ggml_backend_t backend, struct wsp_ggml_cgraph * graph) {
    const uint64_t t0 = now_ns();
    swapped(backend).graph_optimize(backend, graph);
    g_delegated_ns += now_ns() - t0;
}

// From 0.7 a backend may reorder a split's nodes before the scheduler computes it
// (graph_optimize; Metal does): the backend's work, timed and subtracted as graph_compute is.
template <typename Iface, typename = void> struct optimizer {
    static void swap(swapped_backend &, Iface &) {}
};
template <typename Iface> struct optimizer<Iface, std::void_t<decltype(&Iface::graph_optimize)>> {
    static void swap(swapped_backend & s, Iface & iface) {
        s.graph_optimize = iface.graph_optimize;
        if (iface.graph_optimize != nullptr) {
            iface.graph_optimize = timed_graph_optimize;
        }
    }
};

// the devices' own supports_op and offload_op, swapped for counting wrappers
struct swapped_device {
    wsp_ggml_backend_dev_t owner;
    bool (*supports_op)(wsp_ggml_backend_dev_t, const struct wsp_ggml_tensor *);
    bool (*offload_op)(wsp_ggml_backend_dev_t, const struct wsp_ggml_tensor *);
};
swapped_device g_devices[MAX_BACKENDS];
int g_n_devices;
uint64_t g_supports_op_calls;  // questions the layer asked any device
uint64_t g_offload_op_calls;

const swapped_device & swapped_dev(wsp_ggml_backend_dev_t device) {
    return original(g_devices, g_n_devices, device);
}

bool counted_supports_op(wsp_ggml_backend_dev_t device, const struct wsp_ggml_tensor * op) {
    g_supports_op_calls++;
    return swapped_dev(device).supports_op(device, op);
}

bool counted_offload_op(wsp_ggml_backend_dev_t device, const struct wsp_ggml_tensor * op) {
    g_offload_op_calls++;
    return swapped_dev(device).offload_op(device, op);
}

// Counts the questions the layer asks a backend's device (a device without offload_op is
// not asked: the layers answer no themselves).
void count_questions(wsp_ggml_backend_t backend) {
    wsp_ggml_backend_dev_t device = backend->device;
    if (device == nullptr || device->iface.supports_op == counted_supports_op) {
        return;
    }
    if (g_n_devices == MAX_BACKENDS) {
        std::fprintf(stderr, "count_questions: too many devices\n");
        std::abort();
    }
    g_devices[g_n_devices++] = { device, device->iface.supports_op, device->iface.offload_op };
    device->iface.supports_op = counted_supports_op;
    if (device->iface.offload_op != nullptr) {
        device->iface.offload_op = counted_offload_op;
    }
}

// Swaps the graph_compute and synchronize of the scheduler's backends (once per scheduler backend), and counts
// their devices' answers.
void time_backends(wsp_ggml_backend_sched_t sched) {
    for (int i = 0; i < wsp_ggml_backend_sched_get_n_backends(sched); i++) {
        wsp_ggml_backend_t backend = wsp_ggml_backend_sched_get_backend(sched, i);
        count_questions(backend);
        if (backend->iface.graph_compute == timed_graph_compute) {
            continue;
        }
        if (g_n_swapped == MAX_BACKENDS) {
            std::fprintf(stderr, "time_backends: too many backends\n");
            std::abort();
        }
        swapped_backend & s = g_swapped[g_n_swapped++];
        s = { backend, backend->iface.graph_compute, backend->iface.synchronize, nullptr };
        backend->iface.graph_compute = timed_graph_compute;
        if (backend->iface.synchronize != nullptr) {
            backend->iface.synchronize = timed_synchronize;
        }
        optimizer<decltype(backend->iface)>::swap(s, backend->iface);
    }
}

int compare_u64(const void * a, const void * b) {
    const uint64_t x = *static_cast<const uint64_t *>(a), y = *static_cast<const uint64_t *>(b);
    return (x > y) - (x < y);
}

void quiet_log(enum wsp_ggml_log_level, const char *, void *) {}

} // namespace

extern "C" {
bool __real_wsp_ggml_backend_sched_alloc_graph(wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * graph);
enum wsp_ggml_status __real_wsp_ggml_backend_sched_graph_compute(wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * graph);
void __real_wsp_ggml_backend_sched_reset(wsp_ggml_backend_sched_t sched);
bool __real_wsp_ggml_gallocr_alloc_graph(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph);
bool __real_wsp_ggml_gallocr_reserve_n(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph, const int * node_buffer_ids,
                                       const int * leaf_buffer_ids);

bool __wrap_wsp_ggml_backend_sched_alloc_graph(wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * graph) {
    if (g_exclusive) {
        time_backends(sched);
    }
    if (g_warm) {
        // the same graph planned once untimed, so that the timed call finds the graph, the
        // tensors and the layer's tables in the caches
        const uint64_t delegated = g_delegated_ns;
        __real_wsp_ggml_backend_sched_alloc_graph(sched, graph);
        __real_wsp_ggml_backend_sched_reset(sched);
        g_delegated_ns = delegated;
    }
    const uint64_t delegated_before = g_delegated_ns;
    const uint64_t t0 = now_ns();
    const bool ok = __real_wsp_ggml_backend_sched_alloc_graph(sched, graph);
    const uint64_t elapsed = now_ns() - t0;
    g_sched_ns += elapsed;
    g_alloc_own_ns += elapsed - (g_delegated_ns - delegated_before);
    g_splits = wsp_ggml_backend_sched_get_n_splits(sched);
    return ok;
}

enum wsp_ggml_status __wrap_wsp_ggml_backend_sched_graph_compute(wsp_ggml_backend_sched_t sched, struct wsp_ggml_cgraph * graph) {
    const uint64_t t0 = now_ns();
    const enum wsp_ggml_status status = __real_wsp_ggml_backend_sched_graph_compute(sched, graph);
    g_sched_ns += now_ns() - t0;
    return status;
}

void __wrap_wsp_ggml_backend_sched_reset(wsp_ggml_backend_sched_t sched) {
    const uint64_t t0 = now_ns();
    __real_wsp_ggml_backend_sched_reset(sched);
    g_sched_ns += now_ns() - t0;
}

bool __wrap_wsp_ggml_gallocr_alloc_graph(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph) {
    if (!g_exclusive) {
        return __real_wsp_ggml_gallocr_alloc_graph(galloc, graph);
    }
    const uint64_t t0 = now_ns();
    const bool ok = __real_wsp_ggml_gallocr_alloc_graph(galloc, graph);
    g_delegated_ns += now_ns() - t0;
    return ok;
}

bool __wrap_wsp_ggml_gallocr_reserve_n(wsp_ggml_gallocr_t galloc, struct wsp_ggml_cgraph * graph, const int * node_buffer_ids,
                                       const int * leaf_buffer_ids) {
    if (!g_exclusive) {
        return __real_wsp_ggml_gallocr_reserve_n(galloc, graph, node_buffer_ids, leaf_buffer_ids);
    }
    const uint64_t t0 = now_ns();
    const bool ok = __real_wsp_ggml_gallocr_reserve_n(galloc, graph, node_buffer_ids, leaf_buffer_ids);
    g_delegated_ns += now_ns() - t0;
    return ok;
}
}

int main(int argc, char ** argv) {
    g_warm = argc == 5 && std::strcmp(argv[4], "warm") == 0;
    g_exclusive = g_warm || (argc == 5 && std::strcmp(argv[4], "exclusive") == 0);
    const bool accel = argc >= 3 && std::strncmp(argv[2], "accel:", 6) == 0;
    const bool gpu = argc >= 3 && std::strcmp(argv[2], "gpu") == 0;
    const int tokens = argc >= 4 ? std::atoi(argv[3]) : 0;
    if ((argc != 4 && !g_exclusive) || !(accel || gpu || std::strcmp(argv[2], "cpu") == 0) || tokens < 1) {
        std::fprintf(stderr, "usage: %s <model> <cpu|accel:OPS|gpu> <tokens> [exclusive|warm]\n", argv[0]);
        return 2;
    }
    if (g_warm && (accel || gpu)) {
        // a plan with splits rewrites the graph's sources: the second plan would differ
        std::fprintf(stderr, "%s: warm is for the CPU alone\n", argv[0]);
        return 2;
    }
    whisper_log_set(quiet_log, nullptr);
    if (accel && !accel_fixture_register(argv[2], argv[2] + 6)) {
        return 2;
    }
    whisper_context_params cparams = whisper_context_default_params();
    cparams.use_gpu = accel || gpu;
    whisper_context * ctx = whisper_init_from_file_with_params(argv[1], cparams);
    if (ctx == nullptr) {
        std::fprintf(stderr, "%s: cannot load the model\n", argv[1]);
        return 1;
    }
    const int n_vocab = whisper_n_vocab(ctx);
    std::vector<whisper_token> prompt = { whisper_token_sot(ctx), whisper_token_not(ctx) };
    if (whisper_decode(ctx, prompt.data(), int(prompt.size()), 0, 1) != 0) {
        std::fprintf(stderr, "decoding the prompt failed\n");
        return 1;
    }
    int n_past = int(prompt.size());
    std::vector<uint64_t> decode_ns, sched_ns, delegated_ns, alloc_own_ns;
    int splits_min = 1 << 30, splits_max = 0;
    uint64_t token_hash = 1469598103934665603ull;  // FNV-1a over the token ids
    uint64_t supports_op_before = 0, offload_op_before = 0;
    for (int i = -WARMUP; i < tokens; i++) {
        if (i == 0) {
            supports_op_before = g_supports_op_calls;
            offload_op_before = g_offload_op_calls;
            CALLGRIND_START_INSTRUMENTATION;
        }
        const float * logits = whisper_get_logits(ctx);
        const whisper_token token = whisper_token(std::max_element(logits, logits + n_vocab) - logits);
        g_sched_ns = 0;
        g_delegated_ns = 0;
        g_alloc_own_ns = 0;
        const uint64_t t0 = now_ns();
        if (whisper_decode(ctx, &token, 1, n_past, 1) != 0) {
            std::fprintf(stderr, "decoding token %d failed\n", i);
            return 1;
        }
        const uint64_t elapsed = now_ns() - t0;
        n_past++;
        if (i >= 0) {
            decode_ns.push_back(elapsed);
            sched_ns.push_back(g_sched_ns - g_delegated_ns);
            delegated_ns.push_back(g_delegated_ns);
            alloc_own_ns.push_back(g_alloc_own_ns);
            splits_min = std::min(splits_min, g_splits);
            splits_max = std::max(splits_max, g_splits);
            token_hash = (token_hash ^ uint64_t(token)) * 1099511628211ull;
        }
    }
    std::vector<uint64_t> whole_sched_ns(sched_ns.size());
    for (size_t i = 0; i < sched_ns.size(); i++) {
        whole_sched_ns[i] = sched_ns[i] + delegated_ns[i];
    }
    for (auto * v : { &decode_ns, &sched_ns, &delegated_ns, &whole_sched_ns, &alloc_own_ns }) {
        std::qsort(v->data(), v->size(), sizeof(uint64_t), compare_u64);
    }
    std::printf("mode=%s tokens=%d splits_min=%d splits_max=%d supports_op_per_token=%.1f offload_op_per_token=%.1f "
                "token_hash=%016llx median_decode_ns=%llu min_decode_ns=%llu median_sched_calls_ns=%llu",
                argv[2], tokens, splits_min, splits_max, double(g_supports_op_calls - supports_op_before) / tokens,
                double(g_offload_op_calls - offload_op_before) / tokens, (unsigned long long) token_hash,
                (unsigned long long) decode_ns[tokens / 2], (unsigned long long) decode_ns[0],
                (unsigned long long) whole_sched_ns[tokens / 2]);
    if (g_exclusive) {
        std::printf(" median_sched_ns=%llu min_sched_ns=%llu median_delegated_ns=%llu median_alloc_own_ns=%llu",
                    (unsigned long long) sched_ns[tokens / 2], (unsigned long long) sched_ns[0],
                    (unsigned long long) delegated_ns[tokens / 2], (unsigned long long) alloc_own_ns[tokens / 2]);
    }
    std::printf("\n");
    whisper_free(ctx);
    return 0;
}
