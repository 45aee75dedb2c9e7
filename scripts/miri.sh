#!/usr/bin/env bash
# Runs the library's pure-Rust unit tests (the scheduler's planner, its tensor map and arena,
# the registry's bookkeeping, the pthread locks) under Miri, which checks them for undefined
# behaviour. Tests that call into C are marked #[cfg_attr(miri, ignore)].
#
#   scripts/miri.sh [extra cargo test arguments...]
#
# Needs a nightly toolchain with the miri component (rustup component add --toolchain nightly miri).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
exec cargo +nightly miri test --lib "$@"
