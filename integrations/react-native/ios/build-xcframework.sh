#!/usr/bin/env bash
# Builds WspGgmlBackend.xcframework for whisper.rn's or llama.rn's iOS build, with the ABI of the
# app's release (its family in the release table, releases.txt; an unserved release stops it,
# naming the served ones) and the built-in backends of the package's podspec (the table's
# ios_builtins: whisper.rn's CPU and Metal, llama.rn's CPU, BLAS and Metal; Metal left out with
# the package's disable_metal, RNWHISPER_DISABLE_METAL=1 or RNLLAMA_DISABLE_METAL=1, as for pod
# install): the library's static archive for devices (aarch64-apple-ios) and for the simulator
# (aarch64-apple-ios-sim and x86_64-apple-ios, joined into one fat archive). cargo builds the
# archives wherever Rust runs (no Xcode needed: a staticlib is not linked); where rustup has no
# standard library for a simulator target (as on this project's Linux machines), cargo builds it
# from Rust's sources (the rust-src component). ios/fat-archive.py joins the simulator slices
# (as lipo would), and the script writes the framework's Info.plist itself: no Xcode needed. WspGgmlBackend.xcframework.release beside it records the release and built-in backends
# it was built with (ios/apply.sh and the podspec's block check it).
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
# one target dir for every family and set of built-ins (cargo keeps each build's artifacts apart),
# so that a standard library built from source is built once
cargo_dir="$root/target/ios"

all=(aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# The npm package's prebuilt framework (scripts/release/npm-prebuilt.sh), when it was built for this family
# and these built-in backends: copied, no Rust needed
prebuilt="$root/prebuilt/$(wsp_prebuilt_dir "$wsp_build")/ios/WspGgmlBackend.xcframework"
if [ "${targets[*]}" = "${all[*]}" ] && [ "$(cat "$prebuilt.release" 2>/dev/null)" = "$wsp_build $builtins" ]; then
    mkdir -p "$out"
    rm -rf "$out/WspGgmlBackend.xcframework"
    cp -R "$prebuilt" "$out/"
    cp "$prebuilt.release" "$out/"
    echo "build-xcframework: $out/WspGgmlBackend.xcframework ($wsp_package $wsp_version, built in: $builtins): the package's prebuilt one"
    exit 0
fi
command -v cargo >/dev/null || {
    echo "build-xcframework: $wsp_package $wsp_version with the built-in backends $builtins is built from source (this package's prebuilt frameworks are for $(ls "$root/prebuilt" 2>/dev/null | paste -sd ' ' || echo none)), which needs Rust: install it (https://rustup.rs), then run: rustup target add ${all[*]}" >&2
    exit 1
}

cd "$root"
for target in "${targets[@]}"; do
    case "$target" in
        aarch64-apple-ios | aarch64-apple-ios-sim | x86_64-apple-ios) ;;
        *) echo "build-xcframework: not an iOS target: $target" >&2; exit 2 ;;
    esac
    cargo=(cargo)
    std=""
    if ! rustup target list --installed | grep -qx "$target" && ! rustup target add "$target" >/dev/null 2>&1; then
        # no standard library for the target from rustup: cargo builds it from Rust's own sources
        # (the rust-src component; RUSTC_BOOTSTRAP lets stable Rust take -Zbuild-std)
        rustup component list --installed | grep -q '^rust-src' || rustup component add rust-src >/dev/null
        cargo=(env RUSTC_BOOTSTRAP=1 cargo -Zbuild-std=core,alloc)
        std=", its standard library built from source"
    fi
    "${cargo[@]}" rustc --quiet --release --lib --target "$target" --crate-type staticlib \
        --no-default-features --features "$features" --target-dir "$cargo_dir"
    echo "build-xcframework: $wsp_package $wsp_version (features $features$std): $cargo_dir/$target/release/libwsp_ggml_backend.a"
done

if [ "${targets[*]}" != "${all[*]}" ]; then
    echo "build-xcframework: built ${targets[*]} only; the framework needs all of ${all[*]}"
    exit 0
fi
framework="$out/WspGgmlBackend.xcframework"
rm -rf "$framework" "$framework.release"
mkdir -p "$framework/ios-arm64" "$framework/ios-arm64_x86_64-simulator"
cp "$cargo_dir/aarch64-apple-ios/release/libwsp_ggml_backend.a" "$framework/ios-arm64/"
python3 "$root/integrations/react-native/ios/fat-archive.py" create \
    "$framework/ios-arm64_x86_64-simulator/libwsp_ggml_backend.a" \
    "arm64=$cargo_dir/aarch64-apple-ios-sim/release/libwsp_ggml_backend.a" \
    "x86_64=$cargo_dir/x86_64-apple-ios/release/libwsp_ggml_backend.a"
# library IDENTIFIER ARCHS [VARIANT]: one entry of the framework's AvailableLibraries
library() {
    printf '\t\t<dict>\n\t\t\t<key>BinaryPath</key>\n\t\t\t<string>libwsp_ggml_backend.a</string>\n'
    printf '\t\t\t<key>LibraryIdentifier</key>\n\t\t\t<string>%s</string>\n' "$1"
    printf '\t\t\t<key>LibraryPath</key>\n\t\t\t<string>libwsp_ggml_backend.a</string>\n'
    printf '\t\t\t<key>SupportedArchitectures</key>\n\t\t\t<array>\n'
    for arch in $2; do printf '\t\t\t\t<string>%s</string>\n' "$arch"; done
    printf '\t\t\t</array>\n\t\t\t<key>SupportedPlatform</key>\n\t\t\t<string>ios</string>\n'
    if [ -n "${3:-}" ]; then
        printf '\t\t\t<key>SupportedPlatformVariant</key>\n\t\t\t<string>%s</string>\n' "$3"
    fi
    printf '\t\t</dict>\n'
}
{
    printf '<?xml version="1.0" encoding="UTF-8"?>\n'
    printf '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
    printf '<plist version="1.0">\n<dict>\n\t<key>AvailableLibraries</key>\n\t<array>\n'
    library ios-arm64 arm64
    library ios-arm64_x86_64-simulator "arm64 x86_64" simulator
    printf '\t</array>\n\t<key>CFBundlePackageType</key>\n\t<string>XFWK</string>\n'
    printf '\t<key>XCFrameworkFormatVersion</key>\n\t<string>1.0</string>\n</dict>\n</plist>\n'
} > "$framework/Info.plist"
echo "$wsp_build $builtins" > "$framework.release"
echo "build-xcframework: $framework ($wsp_package $wsp_version, built in: $builtins)"
