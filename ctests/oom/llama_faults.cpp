// The out-of-memory sweep over llama.rn's llama.cpp (ctests/fixtures/fault_sweep.h): the
// synthetic model (scripts/models/make-llama-model.sh) is loaded once; the scenario is a context's
// life as llama.rn runs one: llama_init_from_model (the backends, the scheduler, the reserve of
// its graphs), a prompt decoded in one batch, tokens chosen greedily one by one, llama_free. A
// failure the library reports makes llama_init_from_model return NULL or llama_decode fail.
//
//   llama_faults MODEL [every | every:N | =N]
#include "fault_sweep.h"

#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const int prompt_length = 12;
const int n_generate = 6;

struct session {
    llama_model * model;
    int           n_vocab;
};

// The id with the highest logit, and the FNV-1a hash of all the logits' bits.
std::string best_and_hash(const float * logits, int n_vocab, llama_token & best) {
    uint64_t hash = 0xcbf29ce484222325ull;
    best = 0;
    for (llama_token id = 0; id < n_vocab; id++) {
        uint32_t bits;
        std::memcpy(&bits, &logits[id], sizeof(bits));
        for (int byte = 0; byte < 4; byte++) {
            hash = (hash ^ ((bits >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
        }
        if (logits[id] > logits[best]) {
            best = id;
        }
    }
    char line[64];
    std::snprintf(line, sizeof(line), " %d:%016llx", best, (unsigned long long) hash);
    return line;
}

fault_outcome generate_once(void * data, char * out, size_t out_size) {
    auto * s = static_cast<session *>(data);
    llama_context_params params = llama_context_default_params();
    params.n_ctx = 128;
    params.n_batch = 32;
    params.n_ubatch = 32;
    params.n_threads = 1;
    params.n_threads_batch = 1;
    llama_context * ctx = llama_init_from_model(s->model, params);
    if (ctx == nullptr) {
        return FAULT_REPORTED;
    }
    std::vector<llama_token> tokens;
    for (int i = 0; i < prompt_length; i++) {
        tokens.push_back((i * 37 + 11) % s->n_vocab);
    }
    std::string text;
    fault_outcome outcome = FAULT_COMPLETED;
    if (llama_decode(ctx, llama_batch_get_one(tokens.data(), int32_t(tokens.size()))) != 0) {
        outcome = FAULT_REPORTED;
    }
    for (int k = 0; k < n_generate && outcome == FAULT_COMPLETED; k++) {
        llama_token best;
        text += best_and_hash(llama_get_logits_ith(ctx, -1), s->n_vocab, best);
        tokens.push_back(best);
        if (llama_decode(ctx, llama_batch_get_one(&tokens.back(), 1)) != 0) {
            outcome = FAULT_REPORTED;
        }
    }
    llama_free(ctx);
    std::snprintf(out, out_size, "%s", text.c_str());
    return outcome;
}

}  // namespace

int main(int argc, char ** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s MODEL [every | every:N | =N]\n", argv[0]);
        return 2;
    }
    const char * which = argc == 3 ? argv[2] : "every";
    llama_backend_init();
    llama_model_params model_params = llama_model_default_params();
    session s{};
    s.model = llama_model_load_from_file(argv[1], model_params);
    if (s.model == nullptr) {
        std::fprintf(stderr, "%s: cannot load the model\n", argv[1]);
        return 2;
    }
    s.n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(s.model));
    const int bad = fault_sweep("llama context and generation", generate_once, &s, which);
    llama_model_free(s.model);
    llama_backend_free();
    return bad == 0 ? 0 : 1;
}
