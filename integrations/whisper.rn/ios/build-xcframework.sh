#!/usr/bin/env bash
# Builds WspGgmlBackend.xcframework for whisper.rn's iOS build: the library's static archive for
# devices (aarch64-apple-ios) and for the simulator (aarch64-apple-ios-sim and x86_64-apple-ios,
# joined with lipo). cargo builds the archives wherever the Rust targets can be installed (no
# Xcode needed: a staticlib is not linked); lipo and xcodebuild (macOS with Xcode) then make the
# framework. Without them, as on Linux, the script stops after the cargo part and says so.
#   integrations/whisper.rn/ios/build-xcframework.sh [--out DIR] [TARGET...]
# TARGETs default to the three above; naming fewer builds only those (no framework).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out="$root/build/ios"
if [ "${1:-}" = "--out" ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [--out DIR] [TARGET...]" >&2; exit 2; }
    out=$2
    shift 2
fi
all=(aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

cd "$root"
for target in "${targets[@]}"; do
    case "$target" in
        aarch64-apple-ios | aarch64-apple-ios-sim | x86_64-apple-ios) ;;
        *) echo "build-xcframework: not an iOS target: $target" >&2; exit 2 ;;
    esac
    rustup target list --installed | grep -qx "$target" || rustup target add "$target"
    cargo rustc --quiet --release --lib --target "$target" --crate-type staticlib
    echo "build-xcframework: target/$target/release/libwsp_ggml_backend.a"
done

if [ "${targets[*]}" != "${all[*]}" ]; then
    echo "build-xcframework: built ${targets[*]} only; the framework needs all of ${all[*]}"
    exit 0
fi
if ! command -v lipo >/dev/null || ! command -v xcodebuild >/dev/null; then
    echo "build-xcframework: lipo/xcodebuild not found (Xcode): archives built, no framework made"
    exit 0
fi
mkdir -p "$out/simulator"
lipo -create target/aarch64-apple-ios-sim/release/libwsp_ggml_backend.a \
    target/x86_64-apple-ios/release/libwsp_ggml_backend.a -output "$out/simulator/libwsp_ggml_backend.a"
rm -rf "$out/WspGgmlBackend.xcframework"
xcodebuild -create-xcframework \
    -library target/aarch64-apple-ios/release/libwsp_ggml_backend.a \
    -library "$out/simulator/libwsp_ggml_backend.a" \
    -output "$out/WspGgmlBackend.xcframework"
echo "build-xcframework: $out/WspGgmlBackend.xcframework"
