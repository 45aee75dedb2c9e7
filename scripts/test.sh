#!/usr/bin/env bash
# Runs every test: the style gates (rustfmt, clippy, the layout check), the Rust unit tests and
# the C conformance suite through cargo (cargo test), then the same C suite and the end-to-end
# tests through CMake/ctest, each for the default build (whisper.rn 0.4.3), for whisper.rn 0.5.5
# (cargo feature whisper-rn-0-5-5, CMake -DWSP_WHISPER_RN_RELEASE=0.5.5) and for whisper.rn 0.7.4
# (whisper-rn-0-7, -DWSP_WHISPER_RN_RELEASE=0.7.4), then the phones' tests
# (scripts/test-phones.sh). Needs scripts/setup.sh to have run once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

"$root/scripts/fetch-reference.sh"
"$root/scripts/fetch-reference.sh" 0.5.5
"$root/scripts/fetch-reference.sh" 0.7.4
"$root/scripts/fetch-rpc.sh"
cargo fmt --check
rn05=(--features whisper-rn-0-5-5)
rn07=(--features whisper-rn-0-7)
cargo clippy --all-targets -- -D warnings
cargo clippy --all-targets "${rn05[@]}" -- -D warnings
cargo clippy --all-targets "${rn07[@]}" -- -D warnings
# The mirrors against bindgen's reading of each release's headers (compile-time assertions).
cargo check --quiet --manifest-path layout-check/Cargo.toml
WSP_RELEASE_HEADERS="$root/third_party/whisper.rn-0.5.5/cpp" \
    cargo check --quiet --manifest-path layout-check/Cargo.toml "${rn05[@]}"
WSP_RELEASE_HEADERS="$root/third_party/whisper.rn-0.7.4/cpp" \
    cargo check --quiet --manifest-path layout-check/Cargo.toml "${rn07[@]}"

# whisper.rn 0.4.3, 0.5.5, then 0.7.4: cargo's suite, then CMake's
cargo test --all-targets
cargo test --all-targets "${rn05[@]}"
cargo test --all-targets "${rn07[@]}"
for release in 0.4.3 0.5.5 0.7.4; do
    cmake -S . -B "build/ctest-$release" -DWSP_WHISPER_RN_RELEASE="$release" \
        -DWSP_GGML_BACKEND_CARGO_TARGET_DIR="$root/target" >/dev/null
    cmake --build "build/ctest-$release" -j "$(nproc)" >/dev/null
    ctest --test-dir "build/ctest-$release" --output-on-failure -j "$(nproc)"
done
# arm64 and 32-bit ARM under qemu, the Android and iOS archives, whisper.rn's Android build
"$root/scripts/test-phones.sh"
