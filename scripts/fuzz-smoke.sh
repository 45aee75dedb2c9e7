#!/usr/bin/env bash
# CI's fuzzing step: every fuzz target built and run briefly from its committed seeds, so that
# the targets keep building and a regression the seeds reach is caught. Not a fuzzing campaign
# (scripts/fuzz.sh runs one for as long as asked).
#
#   scripts/fuzz-smoke.sh [SECONDS]     (default 30 per target)
#
# One build, the 0.7 family's, holds every target (abi07 needs it; sched_vs_cpu and registry
# serve every family); the 0.5.5 family, whose backend API 2 scheduler functions sched_vs_cpu
# drives, is built and its sched_vs_cpu run too. Installs a minimal nightly toolchain when
# missing. Prints each part's time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-30}
if ! cargo +nightly --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
run() {
    local release=$1 target=$2 start=$SECONDS
    "$root/scripts/fuzz.sh" --release "$release" --smoke "$target" "$seconds" 2>&1 | grep -E "^(#[0-9]+ +DONE|stat::|==[0-9]+==ERROR|thread .* panicked)" || true
    # fuzz.sh's status through the pipe
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzz-smoke: $target ($release) failed" >&2; exit 1; }
    echo "== fuzz-smoke $release $target: $((SECONDS - start)) s"
}
for target in abi07 registry sched_vs_cpu; do
    run 0.7.4 "$target"
done
run 0.5.5 sched_vs_cpu
