#!/usr/bin/env bash
# Runs every test: the style gates (rustfmt, clippy, the layout check), the Rust unit tests and
# the C conformance suite through cargo (cargo test), then the same C suite and the end-to-end
# tests through CMake/ctest, then the phones' tests (scripts/test-phones.sh). Needs
# scripts/setup.sh to have run once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

"$root/scripts/fetch-reference.sh"
"$root/scripts/fetch-rpc.sh"
cargo fmt --check
cargo clippy --all-targets -- -D warnings
# The mirrors against bindgen's reading of whisper.rn's headers (compile-time assertions).
cargo check --quiet --manifest-path layout-check/Cargo.toml
cargo test --all-targets
cmake -S . -B build/ctest -DWSP_GGML_BACKEND_CARGO_TARGET_DIR="$root/target" >/dev/null
cmake --build build/ctest -j "$(nproc)" >/dev/null
ctest --test-dir build/ctest --output-on-failure -j "$(nproc)"
# arm64 and 32-bit ARM under qemu, the Android and iOS archives, whisper.rn's Android build
"$root/scripts/test-phones.sh"
