#!/usr/bin/env bash
# The main job: set everything up, build the library and examples/transcribe (whisper.rn's
# C++ linked against the Rust backend layer), and transcribe a speech sample.
#
#   scripts/run.sh [--release RELEASE]    the whisper.rn release (default 0.4.3; any release of
#                                         releases.txt)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

release=0.4.3
if [ "${1:-}" = "--release" ] && [ -n "${2:-}" ]; then
    release=$2
elif [ $# -gt 0 ]; then
    echo "usage: scripts/run.sh [--release $(scripts/release-table.sh releases | paste -sd '|')]" >&2
    exit 2
fi

scripts/setup.sh
model=$(scripts/make-model.sh)
samples=$(scripts/make-samples.sh)

build=build/release
if [ "$release" != 0.4.3 ]; then build=build/release-$release; fi
# CMake refuses a release it does not serve, and names those it does.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWSP_GGML_BACKEND_TESTS=OFF -DWSP_GGML_BACKEND_RPC=OFF \
    -DWSP_WHISPER_RN_RELEASE="$release" >/dev/null
cmake --build "$build" -j "$(nproc)" --target transcribe >/dev/null

echo "== whisper.rn $release's C++, linked with this library"
for wav in "$samples"/sample1.wav "$samples"/sample2.wav; do
    echo "== $(basename "$wav") says: $(cat "${wav%.wav}.txt")"
    echo "== transcript:"
    "$build/examples/transcribe" -q -t "$(nproc)" "$model" "$wav"
done
