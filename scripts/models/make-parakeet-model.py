#!/usr/bin/env python3
"""Write a small synthetic Parakeet TDT model in the file format whisper.rn's parakeet.cpp loads.

No Parakeet weights can be downloaded here, so the model is random: every weight comes from
Python's Mersenne Twister seeded with SEED (random.Random(SEED).random() gives the same
sequence on every Python version), with the dimensions of HPARAMS, far smaller than NVIDIA's
0.6B model, so that it loads and transcribes a clip in well under a second. Its tokens are
garbage; what matters is that the layer under test computes them (the end-to-end tests compare
two builds bit for bit). Standard library only.

The file (all little-endian):
  u32 magic "ggml" (0x67676d6c)
  15 x i32 hyper-parameters, in the order of HPARAMS (the seventh, ftype: 0 F32, 1 F16)
  i32 n_mel, i32 n_fb, f32 filters[n_mel][n_fb]      mel filterbank, n_fb = n_fft / 2 + 1
  i32 n_window, f32 window[n_window]                  STFT window (centred in n_fft)
  u32 durations[n_tdt_durations]                      TDT frame advances
  i32 n_vocab, then per token: u32 length, bytes      SentencePiece pieces ("\u2581" = space)
  tensor records until the end of the file:
    i32 n_dims, i32 name length, i32 type (0 F32, 1 F16, 26 I32), i32 ne[n_dims],
    name bytes, data (ne[0] varies fastest)
parakeet.cpp accepts any hyper-parameter in 1..the real model's value (and warns about each one
that differs); the loader's tensor shapes follow from them (tensor_shapes below).

Usage: make-parakeet-model.py [--out FILE]
Default FILE: ${WSP_MODEL_DIR:-$HOME/.cache/wsp-ggml-backend}/parakeet-synthetic.bin. The file
is rewritten only when it is missing or its sha256 is not EXPECTED_SHA256; the path is printed.
"""

import argparse
import hashlib
import math
import os
import random
import struct
import sys
import tempfile

SEED = 20240607

# (name, value), in the order the loader reads them. Real model values in comments.
HPARAMS = [
    ("n_vocab", 128),                # 8192
    ("n_audio_ctx", 400),            # 5000: mel frames per chunk; longer audio takes the
                                     #       dynamic path (sample1 fits, sample2/3 do not)
    ("n_audio_state", 64),           # 1024
    ("n_audio_head", 4),             # 8
    ("n_audio_layer", 2),            # 24
    ("n_mels", 64),                  # 128 (a multiple of 8: three stride-2 convolutions)
    ("ftype", 0),                    # 1 (F16). F32 here: for F16 weights the CPU rounds a
                                     # matrix product's input to F16, which hides small
                                     # differences between two builds; with F32 weights, one
                                     # weight changed by 2^-11 of itself mostly changes the
                                     # printed probabilities
    ("n_fft", 512),                  # 512
    ("subsampling_factor", 8),       # 8 (the pre-encoder's three stride-2 convolutions)
    ("n_subsampling_channels", 32),  # 256
    ("n_conv_kernel", 9),            # 9
    ("n_pred_dim", 32),              # 640
    ("n_pred_layers", 2),            # 2
    ("n_tdt_durations", 5),          # 5
    ("n_max_tokens", 10),            # 10
]
DURATIONS = [0, 1, 2, 3, 4]
N_WINDOW = 400  # 25 ms at 16 kHz
SAMPLE_RATE = 16000

# Size and digest of the file this script writes: any change in it shows here.
EXPECTED_SIZE = 1_063_666
EXPECTED_SHA256 = "47eef84aed6da998f190c3f2e8d92add6e908d6cbf8765959667a5d69883b9cf"

F32, F16, I32 = 0, 1, 26
SPACE = "\u2581"


def vocabulary(n_vocab):
    """n_vocab distinct SentencePiece-like pieces: <unk>, word starts, letters, punctuation."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["the", "and", "to", "of", "in", "we", "go", "do", "her", "moon", "fox", "dog"]
    pieces = ["<unk>"]
    pieces += [SPACE + w for w in words]
    pieces += [SPACE + c for c in letters]
    pieces += list(letters)
    pieces += [".", ",", "?", "'", "-"]
    for a in "etaoinsr":
        for b in "hnrstlde":
            if len(pieces) >= n_vocab:
                break
            if a + b not in pieces:
                pieces.append(a + b)
    if len(pieces) < n_vocab:
        raise SystemExit(f"vocabulary: only {len(pieces)} pieces for n_vocab {n_vocab}")
    return pieces[:n_vocab]


def hann(n):
    """Periodic Hann window of n points."""
    return [0.5 - 0.5 * math.cos(2.0 * math.pi * i / n) for i in range(n)]


def mel_filterbank(n_mel, n_fft, rate):
    """Triangular filters on the HTK mel scale from 0 Hz to Nyquist, each of unit area."""
    n_fb = n_fft // 2 + 1

    def to_mel(hz):
        return 2595.0 * math.log10(1.0 + hz / 700.0)

    def to_hz(mel):
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)

    top = to_mel(rate / 2.0)
    edges = [to_hz(top * i / (n_mel + 1)) for i in range(n_mel + 2)]
    bin_hz = [rate * k / n_fft for k in range(n_fb)]
    rows = []
    for m in range(n_mel):
        lo, mid, hi = edges[m], edges[m + 1], edges[m + 2]
        row = []
        for f in bin_hz:
            if lo < f <= mid:
                w = (f - lo) / (mid - lo)
            elif mid < f < hi:
                w = (hi - f) / (hi - mid)
            else:
                w = 0.0
            row.append(w * 2.0 / (hi - lo))
        rows.append(row)
    return n_fb, rows


def tensor_shapes(hp):
    """(name, ggml ne, type) of every tensor parakeet.cpp creates, in its order."""
    wtype = F16 if hp["ftype"] == 1 else F32
    d = hp["n_audio_state"]
    ch = hp["n_subsampling_channels"]
    heads = hp["n_audio_head"]
    h = hp["n_pred_dim"]
    features = (hp["n_mels"] // hp["subsampling_factor"]) * ch
    n_joint = hp["n_vocab"] + hp["n_tdt_durations"] + 1

    out = [("encoder.pre_encode.out.weight", [features, d], wtype),
           ("encoder.pre_encode.out.bias", [d], F32)]
    # conv 0: 1 -> ch channels; 2 and 5 depthwise 3x3; 3 and 6 pointwise ch -> ch
    for i, ne in ((0, [3, 3, 1, ch]), (2, [3, 3, 1, ch]), (3, [1, 1, ch, ch]),
                  (5, [3, 3, 1, ch]), (6, [1, 1, ch, ch])):
        out.append((f"encoder.pre_encode.conv.{i}.weight", ne, F32))
        out.append((f"encoder.pre_encode.conv.{i}.bias", [1, 1, ch, 1], F32))

    for il in range(hp["n_audio_layer"]):
        p = f"encoder.layers.{il}."

        def norm(name):
            return [(p + name + ".weight", [d], F32), (p + name + ".bias", [d], F32)]

        out += norm("norm_feed_forward1")
        out += [(p + "feed_forward1.linear1.weight", [d, 4 * d], wtype),
                (p + "feed_forward1.linear2.weight", [4 * d, d], wtype)]
        out += norm("norm_conv")
        out += [(p + "conv.pointwise_conv1.weight", [d, 2 * d], wtype),
                (p + "conv.depthwise_conv.weight", [hp["n_conv_kernel"], d], F32),
                (p + "conv.batch_norm.weight", [d], F32),
                (p + "conv.batch_norm.bias", [d], F32),
                (p + "conv.batch_norm.running_mean", [d], F32),
                (p + "conv.batch_norm.running_var", [d], F32),
                (p + "conv.batch_norm.num_batches_tracked", [1], I32),
                (p + "conv.pointwise_conv2.weight", [d, d], wtype)]
        out += norm("norm_self_att")
        out += [(p + "self_attn.pos_bias_u", [d // heads, heads], F32),
                (p + "self_attn.pos_bias_v", [d // heads, heads], F32)]
        for m in ("q", "k", "v", "out", "pos"):
            out.append((p + f"self_attn.linear_{m}.weight", [d, d], wtype))
        out += norm("norm_feed_forward2")
        out += [(p + "feed_forward2.linear1.weight", [d, 4 * d], wtype),
                (p + "feed_forward2.linear2.weight", [4 * d, d], wtype)]
        out += norm("norm_out")

    # prediction network: the embedding has a row for the blank token (id n_vocab)
    out.append(("decoder.prediction.embed.weight", [h, hp["n_vocab"] + 1], wtype))
    for il in range(hp["n_pred_layers"]):
        lstm = "decoder.prediction.dec_rnn.lstm."
        out += [(lstm + f"weight_ih_l{il}", [h, 4 * h], wtype),
                (lstm + f"weight_hh_l{il}", [h, 4 * h], wtype),
                (lstm + f"bias_h_l{il}", [4 * h], F32)]

    out += [("joint.pred.weight", [h, h], wtype), ("joint.pred.bias", [h], F32),
            ("joint.enc.weight", [d, h], wtype), ("joint.enc.bias", [h], F32),
            ("joint.joint_net.2.weight", [h, n_joint], wtype), ("joint.joint_net.2.bias", [n_joint], F32)]
    return out


# Scales of the random network. With PyTorch's default initialisation (matrices uniform in
# +-1/sqrt(fan_in), norm scales 1) the encoder output is nearly the same vector at every frame and
# the decoder emits one piece over and over; three times larger matrices and norm scales make the
# tokens follow the audio (about 20 distinct pieces and every duration but 0 on the three samples).
MATRIX_GAIN = 3.0
NORM_GAIN = 3.0


def tensor_values(rng, name, ne):
    """Random values for one tensor, by what the tensor is (a scale, a shift, a matrix...)."""
    n = math.prod(ne)

    def uniform(lo, hi):
        return [lo + (hi - lo) * rng.random() for _ in range(n)]

    if name.endswith("num_batches_tracked"):
        return [1000]
    if name.endswith("running_var"):
        return uniform(0.5, 1.5)
    is_norm = ".norm_" in name or ".batch_norm." in name
    if is_norm and name.endswith(".weight"):
        return uniform(0.9 * NORM_GAIN, 1.1 * NORM_GAIN)
    if name.endswith("running_mean") or "pos_bias" in name:
        return uniform(-0.1, 0.1)
    if name.endswith(".bias") or "bias_h" in name:
        return uniform(-0.05, 0.05)
    # matrices and convolution kernels, by their fan-in
    fan_in = ne[0] if len(ne) <= 2 else ne[0] * ne[1] * ne[2]
    bound = MATRIX_GAIN / math.sqrt(fan_in)
    return uniform(-bound, bound)


def build():
    """The whole file as bytes."""
    hp = dict(HPARAMS)
    rng = random.Random(SEED)
    parts = [struct.pack("<I", 0x67676D6C)]
    parts.append(struct.pack(f"<{len(HPARAMS)}i", *(v for _, v in HPARAMS)))

    n_fb, filters = mel_filterbank(hp["n_mels"], hp["n_fft"], SAMPLE_RATE)
    parts.append(struct.pack("<ii", hp["n_mels"], n_fb))
    for row in filters:
        parts.append(struct.pack(f"<{n_fb}f", *row))

    parts.append(struct.pack("<i", N_WINDOW))
    parts.append(struct.pack(f"<{N_WINDOW}f", *hann(N_WINDOW)))

    if len(DURATIONS) != hp["n_tdt_durations"]:
        raise SystemExit("DURATIONS must have n_tdt_durations entries")
    parts.append(struct.pack(f"<{len(DURATIONS)}I", *DURATIONS))

    pieces = vocabulary(hp["n_vocab"])
    parts.append(struct.pack("<i", len(pieces)))
    for piece in pieces:
        raw = piece.encode("utf-8")
        parts.append(struct.pack("<I", len(raw)) + raw)

    codes = {F32: "f", F16: "e", I32: "i"}
    for name, ne, ttype in tensor_shapes(hp):
        raw_name = name.encode("ascii")
        parts.append(struct.pack(f"<iii{len(ne)}i", len(ne), len(raw_name), ttype, *ne))
        parts.append(raw_name)
        values = tensor_values(rng, name, ne)
        parts.append(struct.pack(f"<{len(values)}{codes[ttype]}", *values))
    return b"".join(parts)


def main():
    default_dir = os.environ.get("WSP_MODEL_DIR") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                  "wsp-ggml-backend")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(default_dir, "parakeet-synthetic.bin"))
    args = ap.parse_args()

    if os.path.isfile(args.out):
        with open(args.out, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() == EXPECTED_SHA256:
                print(args.out)
                return

    data = build()
    digest = hashlib.sha256(data).hexdigest()
    if len(data) != EXPECTED_SIZE or digest != EXPECTED_SHA256:
        print(f"make-parakeet-model: output mismatch: {len(data)} bytes sha256 {digest}\n"
              f"                     expected {EXPECTED_SIZE} bytes sha256 {EXPECTED_SHA256}", file=sys.stderr)
        sys.exit(1)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    # written beside the target, then renamed: a reader never sees half a model
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.out)), suffix=".part")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, args.out)
    print(args.out)


if __name__ == "__main__":
    main()
