// parakeet-tokens: speech to tokens with whisper.rn's parakeet.cpp (NVIDIA's Parakeet TDT, from
// whisper.rn 0.7 on), linked against the Rust backend layer (or, for comparison, whisper.rn's own).
//
//   parakeet-tokens [-t threads] [-q] model.bin audio.wav...
//
// Transcribes each clip (16 kHz mono 16-bit PCM WAV) in turn on a state of its own
// (parakeet_init_state), then the first clip once more on the state the context made when it
// loaded (parakeet_full), which must give the same tokens. stdout gets, per clip, every token as
// the decoder emits it (id, piece, frame, duration, and the probability and log-probability as
// exact bits, %a), the segments with their text and refined token times, and an FNV-1a digest of
// the bits of the last joint-network output's token logits. Two builds agree on stdout only if
// they computed the same bits. Exits 1 when a clip yields no token.
//
// The model may be the synthetic one of scripts/models/make-parakeet-model.py: random weights, so the
// pieces are garbage, but every layer of the network runs (pre-encoder convolutions, conformer
// layers, LSTM prediction network, joint network).

#include "../common/wav.h"
#include "parakeet.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

void quiet_log(enum wsp_ggml_log_level, const char *, void *) {}

struct emitted {
    parakeet_token id;
    uint32_t p_bits;
};

struct run_log {
    std::vector<emitted> tokens;
};

uint32_t bits_of(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
}

void print_token(parakeet_context * ctx, parakeet_state *, const parakeet_token_data * token, void * user_data) {
    auto * log = static_cast<run_log *>(user_data);
    std::printf("  token %zu id=%d piece=\"%s\" frame=%d duration=%d(#%d) p=%a plog=%a t0=%lld t1=%lld%s\n",
                log->tokens.size(), token->id, parakeet_token_to_str(ctx, token->id), token->frame_index,
                token->duration_value, token->duration_idx, token->p, token->plog, (long long) token->t0,
                (long long) token->t1, token->is_word_start ? " word-start" : "");
    log->tokens.push_back({ token->id, bits_of(token->p) });
}

// FNV-1a over the bits of n floats.
uint64_t digest(const float * values, size_t n) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = bits_of(values[i]);
        for (int byte = 0; byte < 4; byte++) {
            hash = (hash ^ ((bits >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
        }
    }
    return hash;
}

// Runs one clip on `state` and prints what it produced; returns its tokens, or false on failure.
bool run_clip(parakeet_context * ctx, parakeet_state * state, const char * label, const std::vector<float> & samples,
              int n_threads, std::vector<emitted> & tokens) {
    run_log log;
    parakeet_full_params params = parakeet_full_default_params(PARAKEET_SAMPLING_GREEDY);
    params.n_threads = n_threads;
    params.new_token_callback = print_token;
    params.new_token_callback_user_data = &log;

    std::printf("%s: %zu samples\n", label, samples.size());
    const int status = parakeet_full_with_state(ctx, state, params, samples.data(), int(samples.size()));
    if (status != 0) {
        std::fprintf(stderr, "%s: parakeet_full failed (%d)\n", label, status);
        return false;
    }
    const int mel_frames = parakeet_n_len_from_state(state);
    std::printf("  mel frames %d (%s)\n", mel_frames,
                mel_frames <= parakeet_n_audio_ctx(ctx) ? "one chunk" : "longer than audio_ctx: dynamic encoder graph");

    const int n_segments = parakeet_full_n_segments_from_state(state);
    for (int s = 0; s < n_segments; s++) {
        const int n_tokens = parakeet_full_n_tokens_from_state(state, s);
        std::printf("  segment %d [%lld, %lld] %d tokens: \"%s\"\n  times", s,
                    (long long) parakeet_full_get_segment_t0_from_state(state, s),
                    (long long) parakeet_full_get_segment_t1_from_state(state, s), n_tokens,
                    parakeet_full_get_segment_text_from_state(state, s));
        for (int t = 0; t < n_tokens; t++) {
            const parakeet_token_data data = parakeet_full_get_token_data_from_state(state, s, t);
            std::printf(" %lld-%lld", (long long) data.t0, (long long) data.t1);
        }
        std::printf("\n");
    }
    // the vocabulary's and the blank's (the TDT durations follow; parakeet.h does not say how many)
    const int n_logits = parakeet_model_n_vocab(ctx) + 1;
    std::printf("  last joint output: fnv1a %016llx\n",
                (unsigned long long) digest(parakeet_get_logits_from_state(state), size_t(n_logits)));

    if (log.tokens.empty()) {
        std::fprintf(stderr, "%s: the model emitted no token\n", label);
        return false;
    }
    tokens = log.tokens;
    return true;
}

int usage(const char * argv0) {
    std::fprintf(stderr, "usage: %s [-t threads] [-q] model.bin audio.wav...\n", argv0);
    return 2;
}

} // namespace

int main(int argc, char ** argv) {
    int n_threads = 1;
    bool quiet = false;
    int arg = 1;  // options first, then the model and the clips
    for (; arg < argc && argv[arg][0] == '-'; arg++) {
        if (std::strcmp(argv[arg], "-q") == 0) {
            quiet = true;
        } else if (std::strcmp(argv[arg], "-t") == 0 && arg + 1 < argc && std::atoi(argv[arg + 1]) > 0) {
            n_threads = std::atoi(argv[++arg]);
        } else {
            return usage(argv[0]);
        }
    }
    if (argc - arg < 2) {
        return usage(argv[0]);
    }
    const std::vector<const char *> positional(argv + arg, argv + argc);
    if (quiet) {
        parakeet_log_set(quiet_log, nullptr);
    }

    std::vector<std::vector<float>> clips(positional.size() - 1);
    for (size_t i = 0; i < clips.size(); i++) {
        std::string error;
        if (!read_wav(positional[i + 1], PARAKEET_SAMPLE_RATE, clips[i], error)) {
            std::fprintf(stderr, "%s: %s\n", positional[i + 1], error.c_str());
            return 1;
        }
    }

    parakeet_context * ctx = parakeet_init_from_file_with_params(positional[0], parakeet_context_default_params());
    if (ctx == nullptr) {
        std::fprintf(stderr, "%s: cannot load the model\n", positional[0]);
        return 1;
    }
    std::printf("model: vocab %d, audio_ctx %d, state %d, heads %d, layers %d, mels %d, ftype %d\n",
                parakeet_model_n_vocab(ctx), parakeet_model_n_audio_ctx(ctx), parakeet_model_n_audio_state(ctx),
                parakeet_model_n_audio_head(ctx), parakeet_model_n_audio_layer(ctx), parakeet_model_n_mels(ctx),
                parakeet_model_ftype(ctx));

    // parakeet.h does not hand out the context's own state, which the _from_state getters need:
    // the clips run on a second one.
    parakeet_state * second = parakeet_init_state(ctx);
    if (second == nullptr) {
        std::fprintf(stderr, "parakeet_init_state failed\n");
        parakeet_free(ctx);
        return 1;
    }

    int status = 0;
    std::vector<emitted> first_tokens;
    for (size_t i = 0; i < clips.size() && status == 0; i++) {
        std::vector<emitted> tokens;
        if (!run_clip(ctx, second, positional[i + 1], clips[i], n_threads, tokens)) {
            status = 1;
        } else if (i == 0) {
            first_tokens = tokens;
        }
    }
    parakeet_free_state(second);

    if (status == 0) {
        // The first clip again, on the state the context made when it loaded.
        parakeet_full_params params = parakeet_full_default_params(PARAKEET_SAMPLING_GREEDY);
        params.n_threads = n_threads;
        run_log log;
        params.new_token_callback = print_token;
        params.new_token_callback_user_data = &log;
        std::printf("%s again, on the context's own state\n", positional[1]);
        if (parakeet_full(ctx, params, clips[0].data(), int(clips[0].size())) != 0) {
            std::fprintf(stderr, "parakeet_full failed\n");
            status = 1;
        } else {
            bool same = log.tokens.size() == first_tokens.size();
            for (size_t i = 0; same && i < log.tokens.size(); i++) {
                same = log.tokens[i].id == first_tokens[i].id && log.tokens[i].p_bits == first_tokens[i].p_bits;
            }
            if (!same) {
                std::fprintf(stderr, "%s: the context's own state gave other tokens than a second state\n",
                             positional[1]);
                status = 1;
            }
        }
    }
    parakeet_free(ctx);
    return status;
}
