#!/usr/bin/env bash
# The benchmark suite (BENCHMARKS.md): builds this library, the reference and the benchmark
# programs, runs every case against both in the same run, writes benches/results/
# (results.json, summary.md, ratios.png) and the results section of BENCHMARKS.md.
#   scripts/bench.sh           the full suite (about 10 minutes; run it on an idle machine)
#   scripts/bench.sh --quick   fewer repetitions: a smoke test, not for the numbers
#   scripts/bench.sh --release 0.5.5|0.7.4 [--quick]
#                              the library built for another release against that release's
#                              own backend layer: scheduler instructions (synthetic graphs and
#                              whisper's decoder), into benches/results-<release>/ and its
#                              section of BENCHMARKS.md
# Needs what scripts/setup.sh installs (it runs it: only missing pieces are installed), and
# PyPI for matplotlib (a venv in target/bench-venv, made once).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

quick=()
release=0.4.3
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=(--quick); shift ;;
        --release) release=$2; shift 2 ;;
        *) echo "usage: scripts/bench.sh [--release RELEASE] [--quick]" >&2; exit 2 ;;
    esac
done

scripts/setup.sh --tests
model=$(scripts/models/make-model.sh)
samples=$(scripts/models/make-samples.sh)

if [ "$release" != 0.4.3 ]; then
    # The library into target/whisper-rn-<release>, the programs into build/bench-<release>: with
    # whisper_decode over whisper.rn's Metal C++ on the stand-in (the "metal" case) and, where the
    # release table gives the family a Vulkan source, over ggml's Vulkan on lavapipe ("vulkan")
    vulkan=OFF
    gpu_programs=(whisper_decode-metal whisper_decode-ref-metal)
    if [ -n "$(scripts/release/release-table.sh fact "$release" vulkan)" ]; then
        vulkan=ON
        gpu_programs+=(whisper_decode-vulkan whisper_decode-ref-vulkan)
        export $(scripts/fetch/fetch-vulkan.sh --environment "$release")
    fi
    cmake -S . -B "build/bench-$release" -DCMAKE_BUILD_TYPE=Release -DGGMLRS_TESTS=OFF \
        -DGGMLRS_EXAMPLES=ON -DGGMLRS_BENCHES=ON -DGGMLRS_RPC=OFF \
        -DGGMLRS_VULKAN=$vulkan -DGGMLRS_WHISPER_RN_RELEASE="$release" \
        -DGGMLRS_CARGO_TARGET_DIR="$root/target" >/dev/null
    cmake --build "build/bench-$release" -j "$(nproc)" --target \
        sched_overhead sched_overhead-ref whisper_decode whisper_decode-ref "${gpu_programs[@]}" >/dev/null
    python3 benches/run.py --build "build/bench-$release" --model "$model" --samples "$samples" \
        --out "benches/results-$release" --markdown BENCHMARKS.md --release "$release" "${quick[@]}"
    echo "bench: wrote benches/results-$release/{results.json,summary.md} and BENCHMARKS.md" >&2
    exit 0
fi

# This library into target/ (cargo build --release), the count-allocations variant into
# target/alloc-count, whisper.rn's objects and the programs into build/bench.
cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DGGMLRS_TESTS=OFF \
    -DGGMLRS_EXAMPLES=ON -DGGMLRS_BENCHES=ON \
    -DGGMLRS_CARGO_TARGET_DIR="$root/target" >/dev/null
cmake --build build/bench -j "$(nproc)" --target \
    sched_overhead sched_overhead-ref tensor_io tensor_io-ref sched_allocs-alloc-count whisper_decode whisper_decode-ref \
    transcribe transcribe-ref transcribe-alloc-count >/dev/null

# matplotlib for the plot, in a venv (installed before measuring, so the run stays quiet).
venv=target/bench-venv
if ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check matplotlib
fi

python3 benches/run.py --build build/bench --model "$model" --samples "$samples" \
    --out benches/results --markdown BENCHMARKS.md "${quick[@]}"
"$venv/bin/python" benches/plot.py benches/results/results.json benches/results/ratios.png
echo "bench: wrote benches/results/{results.json,summary.md,ratios.png} and BENCHMARKS.md" >&2
