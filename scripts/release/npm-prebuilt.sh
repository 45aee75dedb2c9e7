#!/usr/bin/env bash
# Builds the static libraries the npm package carries (scripts/release/npm-pack.sh), so that an app with
# the newest family of whisper.rn or llama.rn builds without Rust. For the family of each
# package's newest release in the release table (releases.txt):
#   DIR/<package>-<newest release>/<Rust target>/<set>/libwsp_ggml_backend.a
#       Android's four ABIs, one archive for each of the package's android_sets (the built-in
#       backends of its Android libraries), as android/wsp-ggml-backend.cmake builds them
#   DIR/<package>-<newest release>/ios/WspGgmlBackend.xcframework (and .release beside it)
#       device and simulator slices, with the podspec's built-in backends (ios/build-xcframework.sh)
# Each archive is stripped of its debug information and of the LLVM bitcode Rust's standard library
# embeds beside its machine code (neither of which an app's linker uses: four fifths of the size),
# and must define exactly the family's functions (scripts/phones/mobile-libs.sh --check). cargo builds in
# the target dirs scripts/phones/mobile-libs.sh and ios/build-xcframework.sh use, so what the phones'
# tests built is not built again.
#   scripts/release/npm-prebuilt.sh DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$root"
source integrations/react-native/release.sh
command -v llvm-strip >/dev/null || { echo "npm-prebuilt: llvm-strip not found (Debian's llvm)" >&2; exit 1; }
strip=(llvm-strip --strip-debug --remove-section=.llvmbc --remove-section=.llvmcmd
       --remove-section=__LLVM,__bitcode --remove-section=__LLVM,__cmdline)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
android_targets=(aarch64-linux-android armv7-linux-androideabi x86_64-linux-android i686-linux-android)

# android RELEASE: the family's Android archives, stripped
android() {
    local release=$1 dir cargo_dir target set features default builtin
    wsp_release "$release"
    dir="$out/$(wsp_prebuilt_dir "$wsp_build")"
    # (in the family's target dir, with the default feature for the CPU, as scripts/phones/mobile-libs.sh
    # builds it: the phones' test has built some of these archives already)
    cargo_dir=$(wsp_cargo_dir "$root" "$wsp_build")
    for target in "${android_targets[@]}"; do
        rustup target list --installed | grep -qx "$target" || rustup target add "$target" >/dev/null
        for set in $wsp_android_sets; do
            default=() features=$wsp_feature
            for builtin in $(echo "$set" | tr - ' '); do
                if [ "$builtin" != cpu ]; then features=$builtin${features:+,$features}; fi
            done
            case "-$set-" in *-cpu-*) ;; *) default=(--no-default-features) ;; esac
            cargo rustc --quiet --release --lib --target "$target" --crate-type staticlib "${default[@]}" \
                ${features:+--features "$features"} --target-dir "$cargo_dir"
            mkdir -p "$dir/$target/$set"
            "${strip[@]}" -o "$dir/$target/$set/libwsp_ggml_backend.a" "$cargo_dir/$target/release/libwsp_ggml_backend.a"
        done
    done
}

# ios RELEASE: the family's framework, stripped
ios() {
    local archive
    wsp_release "$1"
    integrations/react-native/ios/build-xcframework.sh --out "$out/$(wsp_prebuilt_dir "$wsp_build")/ios" "$1" \
        | grep -v ': .*/release/libwsp_ggml_backend.a$'
    while read -r archive; do
        "${strip[@]}" "$archive"
    done < <(find "$out/$(wsp_prebuilt_dir "$wsp_build")/ios" -name '*.a')
}

# check RELEASE: every archive of the family defines its functions, the simulator's fat one a
# slice at a time; prints a line per archive
check() {
    local archive slices slice checked name verdict dir
    wsp_release "$1"
    dir="$out/$(wsp_prebuilt_dir "$wsp_build")"
    # every archive, the simulator's fat one a slice at a time
    while read -r archive; do
        slices=(-)
        if [ "$(head -c 4 "$archive" | od -An -tx1 | tr -d ' ')" = cafebabe ]; then
            slices=($(python3 "$fat" archs "$archive"))
        fi
        for slice in "${slices[@]}"; do
            checked=$archive name=${archive#"$out/"}
            if [ "$slice" != - ]; then
                checked="$work/$wsp_package-$slice.a" name="$name ($slice)"
                python3 "$fat" thin "$archive" "$slice" "$checked"
            fi
            verdict=$(scripts/phones/mobile-libs.sh --check "$checked" "$1") || { echo "npm-prebuilt: $name: $verdict" >&2; return 1; }
            echo "npm-prebuilt: $name ($(du -k "$checked" | cut -f1) kB): ${verdict#*) }"
        done
    done < <(find "$dir" -name '*.a' | sort)
}

# each package's newest release (the last of its families' releases in the table)
fat=integrations/react-native/ios/fat-archive.py
newest=$(scripts/release/release-table.sh newest --apps | awk '{ package = index($0, "@") ? substr($0, 1, index($0, "@") - 1) : "whisper.rn"; last[package] = $0 } END { for (p in last) print last[p] }' | sort)
for release in $newest; do
    rm -rf "$out/$(wsp_prebuilt_dir "$(wsp_release "$release" && echo "$wsp_build")")"
done
# Android's archives, the families side by side (a crate's build keeps one core busy; each family
# has its target dir); the .done file is written only when android() got to its end (errexit)
for release in $newest; do
    ( android "$release" > "$work/$release.log" 2>&1; touch "$work/$release.done" ) &
done
wait
for release in $newest; do
    cat "$work/$release.log"
    [ -f "$work/$release.done" ] || { echo "npm-prebuilt: $release's Android archives failed" >&2; exit 1; }
done
# the frameworks one after the other (they share build-xcframework.sh's target dir), then checks
for release in $newest; do
    ios "$release"
done
for release in $newest; do
    check "$release"
done
