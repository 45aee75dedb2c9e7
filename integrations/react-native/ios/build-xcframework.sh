#!/usr/bin/env bash
# Builds WspGgmlBackend.xcframework for whisper.rn's or llama.rn's iOS build, with the ABI of the
# app's release (its family in the release table, releases.txt; an unserved release stops it,
# naming the served ones) and the built-in backends of the package's podspec (the table's
# ios_builtins: whisper.rn's CPU and Metal, llama.rn's CPU, BLAS and Metal; Metal left out with
# the package's disable_metal, RNWHISPER_DISABLE_METAL=1 or RNLLAMA_DISABLE_METAL=1, as for pod
# install): the library's static archive for devices (aarch64-apple-ios) and for the simulator
# (aarch64-apple-ios-sim and x86_64-apple-ios, joined with lipo). cargo builds the archives
# wherever the Rust targets can be installed (no Xcode needed: a staticlib is not linked); lipo
# and xcodebuild (macOS with Xcode) then make the framework, and WspGgmlBackend.xcframework.release
# beside it records the release it was built as (apply.sh checks it). Without them, as on Linux,
# the script stops after the cargo part and says so.
#   integrations/react-native/ios/build-xcframework.sh [--out DIR] PACKAGE [TARGET...]
# PACKAGE: the package's folder (e.g. node_modules/whisper.rn) or its release (0.7.4,
# llama.rn@0.12.9). TARGETs default to the three above; naming fewer builds only those (no
# framework).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=../release.sh
source "$root/integrations/react-native/release.sh"
usage() {
    echo "usage: $0 [--out DIR] path/to/whisper.rn|path/to/llama.rn|RELEASE [TARGET...]" >&2
    exit 2
}
out="$root/build/ios"
if [ "${1:-}" = "--out" ]; then
    [ $# -ge 2 ] || usage
    out=$2
    shift 2
fi
[ $# -ge 1 ] || usage
wsp_release "$1" || exit 1
shift

# The built-in backends, as the podspec's macros have them (<PREFIX>GGML_USE_CPU, _METAL, ...,
# whose sources the podspec compiles); the package's disable_metal=1 leaves Metal out, as it
# leaves it out of the podspec's build.
builtins=$wsp_ios_builtins
if [ "$(printenv "$wsp_disable_metal" || true)" = 1 ]; then
    builtins=$(echo $builtins | tr ' ' '\n' | grep -vx metal | paste -sd ' ')
fi
features=$(echo $builtins $wsp_feature | tr ' ' ,)
# beside the family's target dir, one per set of built-ins (scripts/mobile-libs.sh builds the
# family's default set there)
cargo_dir="$(wsp_cargo_dir "$root" "$wsp_build")/ios-$(echo $builtins | tr ' ' -)"

all=(aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

cd "$root"
for target in "${targets[@]}"; do
    case "$target" in
        aarch64-apple-ios | aarch64-apple-ios-sim | x86_64-apple-ios) ;;
        *) echo "build-xcframework: not an iOS target: $target" >&2; exit 2 ;;
    esac
    rustup target list --installed | grep -x "$target" >/dev/null || rustup target add "$target"
    cargo rustc --quiet --release --lib --target "$target" --crate-type staticlib \
        --no-default-features --features "$features" --target-dir "$cargo_dir"
    echo "build-xcframework: $wsp_package $wsp_version (features $features): $cargo_dir/$target/release/libwsp_ggml_backend.a"
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
lipo -create "$cargo_dir/aarch64-apple-ios-sim/release/libwsp_ggml_backend.a" \
    "$cargo_dir/x86_64-apple-ios/release/libwsp_ggml_backend.a" -output "$out/simulator/libwsp_ggml_backend.a"
rm -rf "$out/WspGgmlBackend.xcframework" "$out/WspGgmlBackend.xcframework.release"
xcodebuild -create-xcframework \
    -library "$cargo_dir/aarch64-apple-ios/release/libwsp_ggml_backend.a" \
    -library "$out/simulator/libwsp_ggml_backend.a" \
    -output "$out/WspGgmlBackend.xcframework"
echo "$wsp_build" > "$out/WspGgmlBackend.xcframework.release"
echo "build-xcframework: $out/WspGgmlBackend.xcframework ($wsp_package $wsp_version)"
