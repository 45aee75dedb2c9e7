// generate: llama.rn's C++ (llama.cpp, ggml core, the CPU backend; unchanged) decoding greedily
// from a model with no vocabulary, such as scripts/models/make-llama-model.py's synthetic one.
//
//   generate [-t N] [-n N] [--devices] [--cache-type-k TYPE] [--accel-fixture OPS [--fail-then-cpu]]
//            [--rpc HOST:PORT] [--splits] model.gguf
//
// Prints, on stdout, what two builds must agree on bit for bit:
//   --devices   the device listing llama.rn's JSI code gives the app (llamaGetBackendDevicesInfo:
//               rn-common.hpp's backend_devices_info, unchanged; llama.rn only), then each device's type,
//               device_id and reg, the inputs of its de-duplication of GPUs
//   prompt: the fixed prompt's 12 token ids, decoded in one batch
//   token K: ID logits=HASH for each of N generated tokens (default 32), the greedy choice and
//               an FNV-1a hash of the bits of every logit it was chosen from; after the prompt
//               each token is decoded alone, so the KV cache grows and the scheduler re-plans
//               or reuses its plan token by token
//   again: the same after clearing the memory and decoding the prompt in batches of 5
// --accel-fixture OPS registers the ACCEL test device (ctests/fixtures/accel_fixture.h) as a
// GPU, which llama.cpp offloads every layer to, so that each graph splits between it and the
// CPU; it prints "accel: computes=N" on stderr, as a build whose built-in GPU is the ACCEL
// fixture does (ctests/metal). --rpc offloads to ggml's RPC server at HOST:PORT
// (examples/rpc) instead. --cache-type-k TYPE (a ggml type name: f16, bf16, q8_0, ...) sets the K
// cache's type (llama_context_params.type_k; default f16). llama.cpp also offloads to a GPU the
// build has built in (examples/llama_rn.cmake: generate-metal, generate-ref-metal; linked with the
// Metal stand-in, stderr then gets "metal: computes=N nodes=M optimized=K"). --splits (with
// <PREFIX>GGML_SCHED_DEBUG=1 in the environment) passes the scheduler's split listing to stderr
// and counts it ("splits: ...", examples/common/gpu_report.hpp).
//
// --fail-then-cpu expects llama.cpp to refuse the accelerator: the context made on a model
// offloaded to it must be NULL (the app's side of a scheduler that cannot place llama.cpp's
// graphs, such as a K cache ACCEL cannot write held in its device memory, as in llama.rn issue
// #389: --accel-fixture OPS:device-memory --cache-type-k bf16). It then says so on stderr
// ("fail-then-cpu: ... returned NULL"), frees the model, loads it again on the CPU alone in the
// same process (no device offered to llama.cpp) and generates there: stdout is then what a
// fresh process on the CPU prints. If the accelerated context is made, it exits 3.
//
// Written with whisper.rn's ggml names, as every C program of this repository: the build maps
// them to llama.rn's (the generated prefix map).

#include "accel_fixture.h"
#include "ggml_names.h"
#include "llama.h"
#include "nlohmann/json.hpp"
#include "../common/gpu_report.hpp"
#include "../rpc/rpc_device.h"

using json = nlohmann::ordered_json;
// llama.rn's helpers, unchanged: static functions this program does not call (plain llama.cpp
// has none: its listing is the devices' own lines below)
#if __has_include("rn-common.hpp")
#define GENERATE_RN_COMMON 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "rn-common.hpp"
#pragma GCC diagnostic pop
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace {

const int prompt_length = 12;

void quiet_log(enum wsp_ggml_log_level level, const char * text, void *) {
    if (level == WSP_GGML_LOG_LEVEL_ERROR) {
        std::fputs(text, stderr);
    }
}

int usage(const char * program) {
    std::fprintf(stderr,
                 "usage: %s [-t N] [-n N] [--devices] [--cache-type-k TYPE] [--accel-fixture OPS [--fail-then-cpu]] "
                 "[--rpc HOST:PORT] [--splits] model.gguf\n",
                 program);
    return 2;
}

// The ggml type named `name` (as wsp_ggml_type_name prints it), or WSP_GGML_TYPE_COUNT.
enum wsp_ggml_type type_by_name(const char * name) {
    for (int type = 0; type < WSP_GGML_TYPE_COUNT; type++) {
        const char * known = wsp_ggml_type_name((enum wsp_ggml_type) type);
        if (known != nullptr && std::strcmp(known, name) == 0) {
            return (enum wsp_ggml_type) type;
        }
    }
    return WSP_GGML_TYPE_COUNT;
}

// The model with every layer offloaded; with cpu_only, no device is offered to llama.cpp, so
// everything stays on the CPU whatever the registry holds.
llama_model * load_model(const char * path, bool cpu_only) {
    llama_model_params model_params = llama_model_default_params();
    model_params.n_gpu_layers = 999;
    static wsp_ggml_backend_dev_t no_devices[] = { nullptr };
    if (cpu_only) {
        model_params.devices = no_devices;
    }
    llama_model * model = llama_model_load_from_file(path, model_params);
    if (model == nullptr) {
        std::fprintf(stderr, "%s: cannot load the model\n", path);
    }
    return model;
}

llama_context * make_context(llama_model * model, int n_threads, enum wsp_ggml_type type_k) {
    llama_context_params context_params = llama_context_default_params();
    context_params.n_ctx = 256;
    context_params.n_batch = 64;
    context_params.n_ubatch = 64;
    context_params.n_threads = n_threads;
    context_params.n_threads_batch = n_threads;
    context_params.type_k = type_k;
    return llama_init_from_model(model, context_params);
}

const char * type_name(enum wsp_ggml_backend_dev_type type) {
    switch (type) {
        case WSP_GGML_BACKEND_DEVICE_TYPE_CPU: return "CPU";
        case WSP_GGML_BACKEND_DEVICE_TYPE_GPU: return "GPU";
        case WSP_GGML_BACKEND_DEVICE_TYPE_IGPU: return "IGPU";
        case WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL: return "ACCEL";
        default: return "other";
    }
}

#ifdef GENERATE_RN_COMMON
// llama.rn 0.12's backend_devices_info gives the JSON as text, 0.13's the JSON itself
template <typename Info> std::string as_text(const Info & info) {
    if constexpr (std::is_same_v<Info, std::string>) {
        return info;
    } else {
        return info.dump();
    }
}
#endif

void print_devices() {
#ifdef GENERATE_RN_COMMON
    std::printf("devices info: %s\n", as_text(rnllama::backend_devices_info()).c_str());
#endif
    for (size_t i = 0; i < wsp_ggml_backend_dev_count(); i++) {
        wsp_ggml_backend_dev_t dev = wsp_ggml_backend_dev_get(i);
        wsp_ggml_backend_dev_props props;
        wsp_ggml_backend_dev_get_props(dev, &props);
        wsp_ggml_backend_reg_t reg = wsp_ggml_backend_dev_backend_reg(dev);
        std::printf("device %zu: %s type=%s device_id=%s reg=%s\n", i, props.name, type_name(props.type),
                    props.device_id ? props.device_id : "(none)", reg ? wsp_ggml_backend_reg_name(reg) : "(none)");
    }
}

uint64_t fnv1a(const float * values, size_t count) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < count; i++) {
        uint32_t bits;
        std::memcpy(&bits, &values[i], sizeof(bits));
        for (int byte = 0; byte < 4; byte++) {
            hash = (hash ^ ((bits >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
        }
    }
    return hash;
}

// Decodes tokens[from, to) in batches of at most batch_size; false when llama_decode fails.
bool decode(llama_context * ctx, std::vector<llama_token> & tokens, size_t from, size_t to, size_t batch_size) {
    for (size_t at = from; at < to; at += batch_size) {
        const size_t n = std::min(batch_size, to - at);
        if (llama_decode(ctx, llama_batch_get_one(tokens.data() + at, int32_t(n))) != 0) {
            std::fprintf(stderr, "llama_decode failed at token %zu\n", at);
            return false;
        }
    }
    return true;
}

// The prompt, decoded in batches of prompt_batch, then n_generate tokens chosen greedily, each
// printed with the hash of its logits.
bool generate(llama_context * ctx, int n_vocab, size_t prompt_batch, int n_generate, const char * label) {
    std::vector<llama_token> tokens;
    for (int i = 0; i < prompt_length; i++) {
        tokens.push_back((i * 37 + 11) % n_vocab);
    }
    std::printf("%s:", label);
    for (llama_token token : tokens) {
        std::printf(" %d", token);
    }
    std::printf("\n");
    if (!decode(ctx, tokens, 0, tokens.size(), prompt_batch)) {
        return false;
    }
    for (int k = 0; k < n_generate; k++) {
        const float * logits = llama_get_logits_ith(ctx, -1);
        llama_token best = 0;
        for (llama_token id = 1; id < n_vocab; id++) {
            if (logits[id] > logits[best]) {
                best = id;
            }
        }
        std::printf("token %d: %d logits=%016llx\n", k, best, (unsigned long long) fnv1a(logits, size_t(n_vocab)));
        tokens.push_back(best);
        if (!decode(ctx, tokens, tokens.size() - 1, tokens.size(), 1)) {
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char ** argv) {
    int n_threads = 1;
    int n_generate = 32;
    bool devices = false;
    bool fail_then_cpu = false;
    bool splits = false;
    enum wsp_ggml_type type_k = WSP_GGML_TYPE_F16;  // llama_context_default_params'
    const char * accel_ops = nullptr;
    const char * rpc_endpoint = nullptr;
    std::vector<const char *> positional;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            n_threads = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            n_generate = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "--devices") == 0) {
            devices = true;
        } else if (std::strcmp(argv[i], "--splits") == 0) {
            splits = true;
        } else if (std::strcmp(argv[i], "--fail-then-cpu") == 0) {
            fail_then_cpu = true;
        } else if (std::strcmp(argv[i], "--cache-type-k") == 0 && i + 1 < argc) {
            type_k = type_by_name(argv[++i]);
            if (type_k == WSP_GGML_TYPE_COUNT) {
                std::fprintf(stderr, "--cache-type-k: unknown type %s (expected a ggml type name such as q4_0)\n", argv[i]);
                return 2;
            }
        } else if (std::strcmp(argv[i], "--accel-fixture") == 0 && i + 1 < argc) {
            accel_ops = argv[++i];
        } else if (std::strcmp(argv[i], "--rpc") == 0 && i + 1 < argc) {
            rpc_endpoint = argv[++i];
        } else if (argv[i][0] == '-') {
            return usage(argv[0]);
        } else {
            positional.push_back(argv[i]);
        }
    }
    if (positional.size() != 1 || n_threads < 1 || n_generate < 1 || (accel_ops != nullptr && rpc_endpoint != nullptr) ||
        (fail_then_cpu && accel_ops == nullptr)) {
        return usage(argv[0]);
    }
    if (splits && std::getenv(GGML_ENV("GGML_SCHED_DEBUG")) == nullptr) {
        std::fprintf(stderr, "--splits reads the scheduler's debug listing: set %s=1\n", GGML_ENV("GGML_SCHED_DEBUG"));
        return 2;
    }
    split_log split_counts;
    split_counts.echo = split_echo::splits_and_errors;
    if (splits) {
        llama_log_set(count_splits, &split_counts);
    } else {
        llama_log_set(quiet_log, nullptr);
    }
    if (accel_ops != nullptr && !accel_fixture_register("--accel-fixture", accel_ops)) {
        return 2;
    }
    if (rpc_endpoint != nullptr) {
        wsp_ggml_backend_dev_t device = rpc_option_device(rpc_endpoint);
        if (device == nullptr) {
            return 1;
        }
        std::fprintf(stderr, "offloading to %s\n", wsp_ggml_backend_dev_name(device));
    }
    llama_backend_init();
    if (devices) {
        print_devices();
    }

    llama_model * model = load_model(positional[0], false);
    if (model == nullptr) {
        return 1;
    }
    if (fail_then_cpu) {
        llama_context * refused = make_context(model, n_threads, type_k);
        if (refused != nullptr) {
            std::fprintf(stderr, "--fail-then-cpu: llama_init_from_model on ACCEL made a context, expected NULL\n");
            llama_free(refused);
            llama_model_free(model);
            return 3;
        }
        llama_model_free(model);
        std::fprintf(stderr, "fail-then-cpu: llama_init_from_model on ACCEL returned NULL; again on the CPU alone\n");
        model = load_model(positional[0], true);
        if (model == nullptr) {
            return 1;
        }
    }
    llama_context * ctx = make_context(model, n_threads, type_k);
    if (ctx == nullptr) {
        std::fprintf(stderr, "cannot create a context\n");
        llama_model_free(model);
        return 1;
    }
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));

    bool ok = generate(ctx, n_vocab, prompt_length, n_generate, "prompt");
    if (ok) {
        llama_memory_clear(llama_get_memory(ctx), true);
        ok = generate(ctx, n_vocab, 5, n_generate, "again");
    }
    struct accel_fixture_counters counters;
    accel_fixture_counters(&counters);
    // (ACCEL may also be a build's built-in GPU: the ACCEL fixture as Metal, ctests/metal)
    if (accel_ops != nullptr || counters.graph_computes > 0) {
        std::fprintf(stderr, "accel: ops=%s computes=%ld nodes=%ld\n", accel_ops ? accel_ops : "default",
                     counters.graph_computes, counters.nodes_computed);
    }
    if (splits) {
        print_splits(split_counts);
    }
    print_metal_counters();
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return ok ? 0 : 1;
}
