// The out-of-memory sweep over whisper.rn's whisper.cpp (ctests/fixtures/fault_sweep.h): the
// model is loaded once; the scenario is a decode as whisper.rn runs one, on a short window:
// whisper_init_state (the backends, the schedulers and their reserved compute buffers), then
// whisper_full_with_state on a speech sample, then whisper_free_state. A failure the library
// reports makes whisper_init_state return NULL or whisper_full_with_state return an error.
//
//   whisper_faults MODEL SAMPLE.wav [every | every:N | =N]
#include "fault_sweep.h"
#include "../../examples/common/wav.h"

#include "whisper.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct decode {
    whisper_context *  ctx;
    std::vector<float> samples;
};

fault_outcome decode_once(void * data, char * out, size_t out_size) {
    auto * d = static_cast<decode *>(data);
    whisper_state * state = whisper_init_state(d->ctx);
    if (state == nullptr) {
        return FAULT_REPORTED;
    }
    whisper_full_params params = whisper_full_default_params(WHISPER_SAMPLING_GREEDY);
    params.n_threads        = 1;
    params.audio_ctx        = 64;  // 1.28 s of encoder context: the same graphs, shorter
    params.max_tokens       = 4;
    params.print_progress   = false;
    params.print_realtime   = false;
    params.print_timestamps = false;
    params.no_timestamps    = true;
    fault_outcome outcome = FAULT_REPORTED;
    if (whisper_full_with_state(d->ctx, state, params, d->samples.data(), int(d->samples.size())) == 0) {
        std::string text;
        for (int i = 0; i < whisper_full_n_segments_from_state(state); i++) {
            text += whisper_full_get_segment_text_from_state(state, i);
        }
        std::snprintf(out, out_size, "%s", text.c_str());
        outcome = FAULT_COMPLETED;
    }
    whisper_free_state(state);
    return outcome;
}

}  // namespace

int main(int argc, char ** argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: %s MODEL SAMPLE.wav [every | every:N | =N]\n", argv[0]);
        return 2;
    }
    const char * which = argc == 4 ? argv[3] : "every";
    decode d{};
    std::string error;
    if (!read_wav(argv[2], WHISPER_SAMPLE_RATE, d.samples, error)) {
        std::fprintf(stderr, "%s: %s\n", argv[2], error.c_str());
        return 2;
    }
    whisper_context_params cparams = whisper_context_default_params();
    cparams.use_gpu = false;
    d.ctx = whisper_init_from_file_with_params_no_state(argv[1], cparams);
    if (d.ctx == nullptr) {
        std::fprintf(stderr, "%s: cannot load the model\n", argv[1]);
        return 2;
    }
    const int bad = fault_sweep("whisper decode", decode_once, &d, which);
    whisper_free(d.ctx);
    return bad == 0 ? 0 : 1;
}
