// transcribe: speech to text with whisper.rn's whisper.cpp, linked against the Rust backend
// layer (or, for comparison, against whisper.rn's own).
//
//   transcribe [-t threads] [-q] [--timings] [--audio-ctx N] [--no-fallback] [--max-tokens N]
//              [--flash-attn on|off] [--accel-fixture OPS] [--gpu] [--fail-then-cpu] [--splits]
//              [--rpc HOST:PORT] model.bin audio.wav
//
// --audio-ctx N encodes N frames of 20 ms instead of whisper's full 30 s window (1500), which is
// far faster (under an emulator, say) and transcribes the first N * 20 ms of the audio.
// --no-fallback decodes once, greedily: no retries at higher temperatures when the text looks
// unlikely (which a shortened context makes frequent, and each retry decodes five candidates).
// --max-tokens N ends a segment after N tokens (whisper's max_tokens): a window too short for the
// speech makes whisper repeat itself to its limit (224 tokens) otherwise.
// --flash-attn on|off sets whisper's flash attention (one FLASH_ATTN_EXT op per attention instead
// of its matrix products and soft max); without it, whisper's default (0.4.3: off; 0.5.5, 0.7: on).
// The transcript goes to stdout; load/encode/decode timings go to stderr. The audio must be
// 16 kHz, mono, 16-bit PCM WAV. --timings adds one machine-readable line to stderr (for
// scripts/bench.sh): whisper's phase totals and counts, as whisper_print_timings reports them
//   timings: run_ms=R sample_ms=T n_sample=N encode_ms=T n_encode=N decode_ms=T n_decode=N
//            batchd_ms=T n_batchd=N prompt_ms=T n_prompt=N
// (decode: decoder calls of one token; batchd, prompt: decoder calls of several tokens, with
// n_batchd/n_prompt counting tokens, as in whisper.cpp). Linked with the backend layer's
// count-allocations variant (benches/: transcribe-alloc-count), the line also gives the heap
// allocations its Rust code made between the first and the last sampled token:
//   rs_allocs_between_tokens=A sampled_tokens=N
//
// --accel-fixture OPS registers the ACCEL test device (ctests/fixtures/accel_fixture.h), a GPU
// in host memory supporting the ops OPS (few, default, almost-all or a list such as
// MUL_MAT,ADD), before whisper starts, and lets whisper use a GPU: whisper.cpp finds it in the
// registry and schedules its graphs over {ACCEL, CPU}. stderr then gets one line
//   accel: ops=OPS computes=N nodes=M
// (the splits ACCEL computed and their nodes). --gpu lets whisper use a GPU without registering
// one: whatever the registry offers, such as the Metal backend of a build with a built-in Metal
// (examples/CMakeLists.txt: transcribe-metal, transcribe-ref-metal; linked with the Metal stand-in
// of ctests/metal, stderr then gets "metal: computes=N nodes=M optimized=K", the graphs it
// computed). --splits (with WSP_GGML_SCHED_DEBUG=1 in the environment) counts the splits of every
// graph the scheduler plans from its debug listing ("splits: ...", examples/common/gpu_report.hpp).
//
// --fail-then-cpu (with --accel-fixture or --gpu) expects whisper to refuse the GPU: the context
// made with it must be NULL (the app's side of a scheduler that cannot place whisper's graphs,
// such as ACCEL in device memory refusing the V cache update, --accel-fixture OPS:device-memory).
// It then says so on stderr ("fail-then-cpu: ... returned NULL"), with every ERROR line logged
// (even with -q), and makes the context again in the same process without a GPU, which
// transcribes; if the GPU context is made, it exits 3.
//
// --rpc offloads to the ggml RPC server at HOST:PORT (examples/rpc): its device becomes
// whisper's GPU, with the local CPU beside it (builds linked without ggml-rpc refuse the
// option; it excludes --accel-fixture, which is a GPU too).

#include "accel_fixture.h"
#include "whisper.h"
#include "../common/gpu_report.hpp"
#include "../common/wav.h"
#include "../rpc/rpc_device.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

// Defined only by the backend layer's count-allocations variant.
extern "C" uint64_t wsp_rs_allocation_count(void) __attribute__((weak));

void quiet_log(enum wsp_ggml_log_level, const char *, void *) {}

void errors_only_log(enum wsp_ggml_log_level level, const char * text, void *) {
    if (level == WSP_GGML_LOG_LEVEL_ERROR) {
        std::fputs(text, stderr);
    }
}

// The allocation count at the first and at the last sampled token (whisper calls the logits
// filter once per token, after the decoder call that produced it).
struct allocation_watch {
    int tokens = 0;
    uint64_t first = 0, last = 0;
};

void watch_allocations(whisper_context *, whisper_state *, const whisper_token_data *, int, float *, void * user_data) {
    auto * watch = static_cast<allocation_watch *>(user_data);
    const uint64_t count = wsp_rs_allocation_count();
    if (watch->tokens++ == 0) {
        watch->first = count;
    }
    watch->last = count;
}

// whisper.h gives per-call averages (whisper_get_timings) but not the counts behind them;
// whisper_print_timings logs both, so --timings reads its lines through the log callback.
struct phase_timing {
    const char * key;  // as in whisper_print_timings' "<key> time = T ms / N runs"
    double total_ms = 0.0;
    int count = 0;
};

void capture_timings(enum wsp_ggml_log_level, const char * text, void * user_data) {
    auto * phases = static_cast<std::vector<phase_timing> *>(user_data);
    for (phase_timing & phase : *phases) {
        const std::string label = std::string(" ") + phase.key + " time = ";
        const char * at = std::strstr(text, label.c_str());
        if (at != nullptr) {
            std::sscanf(at + label.size(), "%lf ms / %d", &phase.total_ms, &phase.count);
        }
    }
}

int usage(const char * argv0) {
    std::fprintf(stderr,
                 "usage: %s [-t threads] [-q] [--timings] [--audio-ctx N] [--no-fallback] [--max-tokens N] "
                 "[--flash-attn on|off] [--accel-fixture OPS] [--gpu] [--fail-then-cpu] [--splits] [--rpc HOST:PORT] "
                 "model.bin audio.wav\n",
                 argv0);
    return 2;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char ** argv) {
    int n_threads = 1;
    bool quiet = false;
    bool timings_line = false;
    const char * accel_ops = nullptr;
    bool gpu = false;
    bool fail_then_cpu = false;
    int flash_attn = -1;  // whisper's default
    bool splits = false;
    const char * rpc_endpoint = nullptr;
    int audio_ctx = 0;  // whisper's default: the model's full window
    bool fallback = true;
    int max_tokens = 0;  // whisper's default: no limit
    std::vector<const char *> positional;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            n_threads = std::atoi(argv[++i]);
        } else if (std::strcmp(argv[i], "-q") == 0) {
            quiet = true;
        } else if (std::strcmp(argv[i], "--timings") == 0) {
            timings_line = true;
        } else if (std::strcmp(argv[i], "--accel-fixture") == 0 && i + 1 < argc) {
            accel_ops = argv[++i];
        } else if (std::strcmp(argv[i], "--gpu") == 0) {
            gpu = true;
        } else if (std::strcmp(argv[i], "--fail-then-cpu") == 0) {
            fail_then_cpu = true;
        } else if (std::strcmp(argv[i], "--flash-attn") == 0 && i + 1 < argc) {
            const char * value = argv[++i];
            if (std::strcmp(value, "on") != 0 && std::strcmp(value, "off") != 0) {
                std::fprintf(stderr, "--flash-attn: expected on or off, got %s\n", value);
                return 2;
            }
            flash_attn = std::strcmp(value, "on") == 0;
        } else if (std::strcmp(argv[i], "--splits") == 0) {
            splits = true;
        } else if (std::strcmp(argv[i], "--rpc") == 0 && i + 1 < argc) {
            rpc_endpoint = argv[++i];
        } else if (std::strcmp(argv[i], "--audio-ctx") == 0 && i + 1 < argc) {
            audio_ctx = std::atoi(argv[++i]);
            if (audio_ctx < 1 || audio_ctx > 1500) {
                std::fprintf(stderr, "--audio-ctx: expected 1..1500 frames, got %s\n", argv[i]);
                return 2;
            }
        } else if (std::strcmp(argv[i], "--no-fallback") == 0) {
            fallback = false;
        } else if (std::strcmp(argv[i], "--max-tokens") == 0 && i + 1 < argc) {
            max_tokens = std::atoi(argv[++i]);
            if (max_tokens < 1) {
                std::fprintf(stderr, "--max-tokens: expected a positive count, got %s\n", argv[i]);
                return 2;
            }
        } else if (argv[i][0] == '-') {
            return usage(argv[0]);
        } else {
            positional.push_back(argv[i]);
        }
    }
    if (positional.size() != 2 || n_threads < 1 || (accel_ops != nullptr && rpc_endpoint != nullptr) ||
        (fail_then_cpu && accel_ops == nullptr && !gpu)) {
        return usage(argv[0]);
    }
    if (splits && std::getenv("WSP_GGML_SCHED_DEBUG") == nullptr) {
        std::fprintf(stderr, "--splits reads the scheduler's debug listing: set WSP_GGML_SCHED_DEBUG=1\n");
        return 2;
    }
    if (accel_ops != nullptr && !accel_fixture_register("--accel-fixture", accel_ops)) {
        return 2;
    }
    split_log split_counts;
    split_counts.echo = quiet ? split_echo::nothing : split_echo::everything;
    if (splits) {
        whisper_log_set(count_splits, &split_counts);
    } else if (fail_then_cpu) {
        whisper_log_set(errors_only_log, nullptr);
    } else if (quiet) {
        whisper_log_set(quiet_log, nullptr);
    }

    std::vector<float> samples;
    std::string error;
    if (!read_wav(positional[1], WHISPER_SAMPLE_RATE, samples, error)) {
        std::fprintf(stderr, "%s: %s\n", positional[1], error.c_str());
        return 1;
    }

    const auto t_load = std::chrono::steady_clock::now();
    whisper_context_params cparams = whisper_context_default_params();
    cparams.use_gpu = accel_ops != nullptr || gpu;
    if (flash_attn >= 0) {
        cparams.flash_attn = flash_attn == 1;
    }
    if (rpc_endpoint != nullptr) {
        wsp_ggml_backend_dev_t device = rpc_option_device(rpc_endpoint);
        if (device == nullptr) {
            return 1;
        }
        // The RPC device is a GPU to whisper.cpp, and the only one registered: it takes the
        // weights and the work it supports, the CPU the rest.
        cparams.use_gpu = true;
        std::fprintf(stderr, "offloading to %s\n", wsp_ggml_backend_dev_name(device));
    }
    if (fail_then_cpu) {
        whisper_context * refused = whisper_init_from_file_with_params(positional[0], cparams);
        if (refused != nullptr) {
            std::fprintf(stderr, "--fail-then-cpu: whisper_init_from_file_with_params with the GPU made a context, "
                                 "expected NULL\n");
            whisper_free(refused);
            return 3;
        }
        std::fprintf(stderr, "fail-then-cpu: whisper_init_from_file_with_params with the GPU returned NULL; "
                             "again without a GPU\n");
        cparams.use_gpu = false;
    }
    whisper_context * ctx = whisper_init_from_file_with_params(positional[0], cparams);
    if (ctx == nullptr) {
        std::fprintf(stderr, "%s: cannot load the model\n", positional[0]);
        return 1;
    }
    const double load_s = seconds_since(t_load);

    whisper_full_params params = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
    params.n_threads = n_threads;
    params.print_progress = false;
    params.print_realtime = false;
    params.print_timestamps = false;
    params.no_timestamps = true;
    params.language = "en";
    params.audio_ctx = audio_ctx;
    params.max_tokens = max_tokens;
    if (!fallback) {
        params.temperature_inc = 0.0f;
    }
    allocation_watch watch;
    const bool count_allocations = timings_line && wsp_rs_allocation_count != nullptr;
    if (count_allocations) {
        params.logits_filter_callback = watch_allocations;
        params.logits_filter_callback_user_data = &watch;
    }

    const auto t_run = std::chrono::steady_clock::now();
    if (whisper_full(ctx, params, samples.data(), int(samples.size())) != 0) {
        std::fprintf(stderr, "transcription failed\n");
        whisper_free(ctx);
        return 1;
    }
    const double run_s = seconds_since(t_run);

    std::string text;
    for (int i = 0; i < whisper_full_n_segments(ctx); i++) {
        text += whisper_full_get_segment_text(ctx, i);
    }
    // Segments start with a space; print the transcript without it.
    const size_t first = text.find_first_not_of(' ');
    std::printf("%s\n", first == std::string::npos ? "" : text.c_str() + first);

    const whisper_timings * timings = whisper_get_timings(ctx);
    std::fprintf(stderr, "load %.1f ms, encode %.1f ms, decode %.1f ms, total run %.1f ms (%d thread%s)\n",
                 load_s * 1e3, timings ? timings->encode_ms : 0.0f, timings ? timings->decode_ms : 0.0f, run_s * 1e3,
                 n_threads, n_threads == 1 ? "" : "s");
    delete timings;
    if (timings_line) {
        std::vector<phase_timing> phases = { { "sample" }, { "encode" }, { "decode" }, { "batchd" }, { "prompt" } };
        whisper_log_set(capture_timings, &phases);
        whisper_print_timings(ctx);
        whisper_log_set(quiet ? quiet_log : nullptr, nullptr);
        std::fprintf(stderr, "timings: run_ms=%.3f", run_s * 1e3);
        for (const phase_timing & phase : phases) {
            std::fprintf(stderr, " %s_ms=%.2f n_%s=%d", phase.key, phase.total_ms, phase.key, phase.count);
        }
        if (count_allocations) {
            std::fprintf(stderr, " rs_allocs_between_tokens=%llu sampled_tokens=%d",
                         (unsigned long long) (watch.last - watch.first), watch.tokens);
        }
        std::fprintf(stderr, "\n");
    }
    if (splits) {
        print_splits(split_counts);
    }
    struct accel_fixture_counters accel_counters;
    accel_fixture_counters(&accel_counters);
    // (with --gpu, ACCEL may be a build's built-in GPU: whisper.rn 0.4.3's Metal, ctests/metal)
    if (accel_ops != nullptr || accel_counters.graph_computes > 0) {
        std::fprintf(stderr, "accel: ops=%s computes=%ld nodes=%ld\n", accel_ops ? accel_ops : "default",
                     accel_counters.graph_computes, accel_counters.nodes_computed);
    }
    print_metal_counters();
    whisper_free(ctx);
    return 0;
}
