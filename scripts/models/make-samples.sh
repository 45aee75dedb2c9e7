#!/usr/bin/env bash
# Makes the end-to-end speech samples: short English sentences spoken by espeak-ng, converted
# by sox to what whisper expects (16 kHz, mono, 16-bit PCM). Output: a directory of WAVs and
# the sentences they say (DIR/NAME.txt). Idempotent.
set -euo pipefail
out=${1:-${WSP_SAMPLE_DIR:-$HOME/.cache/wsp-ggml-backend/samples}}
mkdir -p "$out"

sentences=(
    "The quick brown fox jumps over the lazy dog."
    "Please call Stella and ask her to bring these things with her from the store."
    "We choose to go to the moon in this decade and do the other things."
)
for i in "${!sentences[@]}"; do
    name="sample$((i + 1))"
    [ -s "$out/$name.wav" ] && continue
    raw=$(mktemp --suffix .wav)
    espeak-ng -v en-us -s 150 -w "$raw" "${sentences[$i]}"
    sox "$raw" -r 16000 -c 1 -b 16 -e signed-integer "$out/$name.wav"
    rm -f "$raw"
    printf '%s\n' "${sentences[$i]}" > "$out/$name.txt"
done
echo "$out"
