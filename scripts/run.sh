#!/usr/bin/env bash
# The main job: set everything up, build the library and an example of the release's own C++
# linked against it, and run it: whisper.rn's transcribe on speech samples, or llama.rn's
# generate on the synthetic llama model.
#
#   scripts/run.sh [--release RELEASE]    the release (default whisper.rn 0.4.3): a whisper.rn
#                                         version (0.7.4) or PACKAGE@VERSION (whisper.rn@0.7.4,
#                                         llama.rn@0.12.9), any of releases.txt
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

release=whisper.rn@0.4.3
if [ "${1:-}" = "--release" ] && [ -n "${2:-}" ]; then
    release=$2
    case "$release" in *@*) ;; *) release=whisper.rn@$release ;; esac
elif [ $# -gt 0 ]; then
    echo "usage: scripts/run.sh [--release $(scripts/release/release-table.sh releases | paste -sd '|')|llama.rn@VERSION]" >&2
    exit 2
fi
package=${release%@*}

scripts/setup.sh
build=build/release
if [ "$release" != whisper.rn@0.4.3 ]; then build=build/release-${release/@/-}; fi
# CMake refuses a release it does not serve, and names those it does.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGGMLRS_TESTS=OFF -DGGMLRS_RPC=OFF \
    -DGGMLRS_RELEASE="$release" >/dev/null

if [ "$package" = llama.rn ]; then
    model=$(scripts/models/make-llama-model.sh)
    cmake --build "$build" -j "$(nproc)" --target generate >/dev/null
    echo "== $release's C++ (llama.cpp), linked with this library, on a synthetic model (random weights)"
    echo "== the devices llama.rn lists, the prompt's token ids, then greedy decoding with each logit vector's hash:"
    "$build/examples/generate" --devices -n 16 -t "$(nproc)" "$model"
    exit 0
fi

model=$(scripts/models/make-model.sh)
samples=$(scripts/models/make-samples.sh)
cmake --build "$build" -j "$(nproc)" --target transcribe >/dev/null
echo "== $release's C++, linked with this library"
for wav in "$samples"/sample1.wav "$samples"/sample2.wav; do
    echo "== $(basename "$wav") says: $(cat "${wav%.wav}.txt")"
    echo "== transcript:"
    "$build/examples/transcribe" -q -t "$(nproc)" "$model" "$wav"
done
