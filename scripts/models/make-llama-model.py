#!/usr/bin/env python3
"""A tiny synthetic llama model for llama.rn's C++: the llama architecture with random weights from
a fixed seed, written with PyPI's gguf package (scripts/models/make-llama-model.sh installs it).

No vocabulary (tokenizer.ggml.model = no_vocab): a program feeds token ids and reads token ids.
Three layers of width 64, grouped-query attention (4 query heads over 2 key/value heads), a
gated feed-forward of width 192; norms and attention in F32, the feed-forward and the output
projection in Q8_0, the token embeddings in F16. The weights are scaled so that the logits
spread widely and greedy decoding does not settle on one token at once.

    make-llama-model.py OUT
"""

import sys

import numpy as np
import gguf

SEED = 20261205
N_VOCAB = 320
N_EMBD = 64
N_HEAD = 4
N_HEAD_KV = 2
N_FF = 192
N_LAYER = 3
N_CTX = 512


def main(out):
    rng = np.random.default_rng(SEED)
    head_dim = N_EMBD // N_HEAD

    writer = gguf.GGUFWriter(out, "llama")
    writer.add_name("wsp-ggml-backend synthetic llama")
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(10000.0)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_vocab_size(N_VOCAB)
    writer.add_tokenizer_model("no_vocab")
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)

    def matrix(rows, cols, scale):
        # ggml's shape is [cols, rows]: numpy's last axis is ggml's first
        return (rng.standard_normal((rows, cols)) * scale).astype(np.float32)

    def add(name, data, kind):
        if kind == "f32":
            writer.add_tensor(name, data.astype(np.float32))
        elif kind == "f16":
            writer.add_tensor(name, data.astype(np.float16))
        else:
            quantized = gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q8_0)
            writer.add_tensor(name, quantized, raw_dtype=gguf.GGMLQuantizationType.Q8_0)

    def norm():
        return (1.0 + 0.1 * rng.standard_normal(N_EMBD)).astype(np.float32)

    add("token_embd.weight", matrix(N_VOCAB, N_EMBD, 1.0), "f16")
    for layer in range(N_LAYER):
        block = f"blk.{layer}"
        add(f"{block}.attn_norm.weight", norm(), "f32")
        add(f"{block}.attn_q.weight", matrix(N_EMBD, N_EMBD, 0.3), "f32")
        add(f"{block}.attn_k.weight", matrix(N_HEAD_KV * head_dim, N_EMBD, 0.3), "f32")
        add(f"{block}.attn_v.weight", matrix(N_HEAD_KV * head_dim, N_EMBD, 0.3), "f32")
        add(f"{block}.attn_output.weight", matrix(N_EMBD, N_EMBD, 0.15), "f32")
        add(f"{block}.ffn_norm.weight", norm(), "f32")
        add(f"{block}.ffn_gate.weight", matrix(N_FF, N_EMBD, 0.2), "q8_0")
        add(f"{block}.ffn_up.weight", matrix(N_FF, N_EMBD, 0.2), "q8_0")
        add(f"{block}.ffn_down.weight", matrix(N_EMBD, N_FF, 0.1), "q8_0")
    add("output_norm.weight", norm(), "f32")
    add("output.weight", matrix(N_VOCAB, N_EMBD, 0.5), "q8_0")

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make-llama-model.py OUT")
    main(sys.argv[1])
