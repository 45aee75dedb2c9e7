#!/usr/bin/env bash
# The main job: set everything up, build the library and examples/transcribe (whisper.rn's
# C++ linked against the Rust backend layer), and transcribe a speech sample.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

scripts/setup.sh
model=$(scripts/make-model.sh)
samples=$(scripts/make-samples.sh)

cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DWSP_GGML_BACKEND_TESTS=OFF >/dev/null
cmake --build build/release -j "$(nproc)" --target transcribe >/dev/null

for wav in "$samples"/sample1.wav "$samples"/sample2.wav; do
    echo "== $(basename "$wav") says: $(cat "${wav%.wav}.txt")"
    echo "== transcript:"
    build/release/examples/transcribe -q -t "$(nproc)" "$model" "$wav"
done
