#!/usr/bin/env bash
# Fuzzes the library (fuzz/, libFuzzer with AddressSanitizer). Targets:
#   sched_vs_cpu  random graphs through a scheduler over {TEST, CPU} against the CPU alone
#                 (every family)
#   registry      register, device_register, load, unload, lookups and load_all from 2-4 threads,
#                 the registry checked against a model after every round (every family)
#   abi07         whisper.rn 0.7's 2d tensor access against a plain-loop model, and the meta
#                 backend with hostile split states (family 0.7 only)
#
#   scripts/checks/fuzz.sh [--release RELEASE] [--smoke | --build-only] [TARGET] [SECONDS] [libFuzzer options...]
#
# RELEASE: 0.4.3 (default), 0.5.5 or 0.7.4: the family to build (its cargo feature and
# whisper.rn's C of that release). TARGET: default sched_vs_cpu; with --build-only, "all" builds
# every target of the family. SECONDS: default 600, one job.
# --smoke: the fuzz run starts from the committed seeds only and keeps nothing (CI's check that
# the targets build and run: scripts/checks/fuzz-smoke.sh).
#
# No cargo-fuzz needed: the targets are built with `cargo +nightly build` and the flags
# cargo-fuzz would give (coverage instrumentation, AddressSanitizer, debug assertions), in
# fuzz/target/<release>. Inputs libFuzzer finds go to fuzz/corpus-work/<target> (ignored); the
# seeds in fuzz/corpus/<target> are only read; fuzz/dict/<target>.dict, when present, is its
# dictionary. A crash or mismatch is written to fuzz/artifacts/<target>/; replay it with
#   WSP_FUZZ_VERBOSE=1 fuzz/target/<release>/x86_64-unknown-linux-gnu/release/<target> <file>
# (WSP_FUZZ_VERBOSE prints the decoded program; WSP_FUZZ_LOG=1 keeps ggml's log,
# WSP_GGML_SCHED_DEBUG=2 the scheduler's assignments).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
release=0.4.3
smoke=false
build_only=false
while [ $# -gt 0 ]; do
    case "$1" in
        --release) release=$2; shift 2 ;;
        --smoke) smoke=true; shift ;;
        --build-only) build_only=true; shift ;;
        *) break ;;
    esac
done
target=${1:-sched_vs_cpu}
seconds=${2:-600}
shift 2 || shift $# || true

feature=$("$root/scripts/release/release-table.sh" fact "$release" feature)
"$root/scripts/fetch/fetch-reference.sh" "$release"
if ! cargo +nightly --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi

host=x86_64-unknown-linux-gnu
# what cargo-fuzz passes (its defaults: sanitizer-coverage for libFuzzer, ASan, assertions on)
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Zsanitizer=address \
-Cdebug-assertions -Coverflow-checks -Cforce-frame-pointers"
export CARGO_TARGET_DIR="$root/fuzz/target/$release"
cd "$root/fuzz"
if [ "$target" = all ]; then bins=(--bins); else bins=(--bin "$target"); fi
cargo +nightly build --release --target "$host" "${bins[@]}" ${feature:+--features "$feature"}
exe="$CARGO_TARGET_DIR/$host/release/$target"
if $build_only; then exit 0; fi

mkdir -p "corpus/$target" "artifacts/$target"
options=(-max_total_time="$seconds" -timeout=60 -print_final_stats=1 -artifact_prefix="artifacts/$target/")
if [ -f "dict/$target.dict" ]; then options+=(-dict="dict/$target.dict"); fi
if $smoke; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
else
    work="corpus-work/$target"
    mkdir -p "$work"
fi
# ASan: leaks are findings; an abort in a forked child (abi07) is the expected outcome there.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
"$exe" "$work" "corpus/$target" -max_len=1024 "${options[@]}" "$@"
