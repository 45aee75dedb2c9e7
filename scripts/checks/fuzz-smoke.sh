#!/usr/bin/env bash
# CI's fuzzing step: every fuzz target built and run briefly from its committed seeds, so that
# the targets keep building and a regression the seeds reach is caught. Not a fuzzing campaign
# (scripts/checks/fuzz.sh runs one for as long as asked).
#
#   scripts/checks/fuzz-smoke.sh [--all] [SECONDS]     (default 30 s per target)
#
# One build, the 0.7 family's, holds every target (abi07 needs it; sched_vs_cpu and registry
# serve every family): what CI runs. --all also builds the 0.5.5 family (backend API 2's
# scheduler, which sched_vs_cpu drives) and the default family, 0.4.3, and runs their
# sched_vs_cpu and registry (each family's build compiles whisper.rn's C again: minutes).
# Installs a minimal nightly toolchain when missing. Prints each target's time.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
all=false
if [ "${1:-}" = --all ]; then
    all=true
    shift
fi
seconds=${1:-30}
if ! cargo +nightly --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
fi
run() {
    local release=$1 target=$2 start=$SECONDS log
    log=$(mktemp)
    if ! "$root/scripts/checks/fuzz.sh" --release "$release" --smoke "$target" "$seconds" >"$log" 2>&1; then
        tail -n 60 "$log" >&2
        echo "fuzz-smoke: $target ($release) failed" >&2
        exit 1
    fi
    grep -E "^#[0-9]+[[:space:]]+DONE" "$log" || true
    rm -f "$log"
    echo "== fuzz-smoke $release $target: $((SECONDS - start)) s"
}
for target in abi07 registry sched_vs_cpu; do
    run 0.7.4 "$target"
done
if $all; then
    for release in 0.5.5 0.4.3; do
        run "$release" sched_vs_cpu
        run "$release" registry
    done
fi
