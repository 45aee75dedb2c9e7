#!/usr/bin/env bash
# Fuzzes the scheduler: fuzz/fuzz_targets/sched_vs_cpu.rs builds random graphs and runs them
# through a scheduler over {TEST, CPU} and through one over the CPU alone; outputs must match,
# and AddressSanitizer/LeakSanitizer must stay quiet.
#
#   scripts/fuzz.sh [SECONDS] [libFuzzer options...]     (default 600 seconds, one job)
#
# Needs a nightly toolchain and cargo-fuzz (installed here when missing). Inputs libFuzzer
# finds go to fuzz/corpus-work/ (ignored); the committed seeds in fuzz/corpus/ are only read.
# A crash or mismatch is written to fuzz/artifacts/sched_vs_cpu/; replay it with
#   WSP_FUZZ_VERBOSE=1 fuzz/target/x86_64-unknown-linux-gnu/release/sched_vs_cpu <file>
# (WSP_FUZZ_VERBOSE prints the decoded program; WSP_FUZZ_LOG=1 keeps ggml's log,
# WSP_GGML_SCHED_DEBUG=2 the scheduler's assignments), and minimize it with
#   cd fuzz && cargo +nightly fuzz tmin sched_vs_cpu <file>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
shift || true

"$root/scripts/fetch-reference.sh"
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo +nightly install cargo-fuzz
fi
cd "$root/fuzz"
mkdir -p corpus-work/sched_vs_cpu
exec cargo +nightly fuzz run sched_vs_cpu corpus-work/sched_vs_cpu corpus/sched_vs_cpu -- \
    -max_total_time="$seconds" -max_len=1024 -timeout=60 -print_final_stats=1 "$@"
