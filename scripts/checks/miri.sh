#!/usr/bin/env bash
# Runs the library's pure-Rust unit tests (the scheduler's planner, its tensor map and arena,
# its re-entrant handle, the registry's bookkeeping, the pthread locks, the meta backend's split
# states) under Miri, which checks them for undefined behaviour, for the default family and for
# 0.7's. Tests that call into C are marked #[cfg_attr(miri, ignore)].
#
#   scripts/checks/miri.sh [extra cargo test arguments...]
#
# Needs a nightly toolchain with the miri component (rustup component add --toolchain nightly miri).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cargo +nightly miri test --lib "$@"
cargo +nightly miri test --lib --features "$(scripts/release/release-table.sh fact "$(scripts/release/release-table.sh newest | tail -1)" feature)" "$@"
