#!/usr/bin/env bash
# Tests ios/ as far as Linux allows, for whisper.rn and llama.rn:
#   1. build-xcframework.sh's cargo part for the device (lipo and xcodebuild are macOS tools; the
#      simulator targets' standard libraries are not always installable here), given whisper.rn
#      0.7.4's, llama.rn 0.12.9's and the llama.rn 0.13 preview's (plain names) packages: the archive defines the release's functions
#      (scripts/phones/mobile-libs.sh --check) and registers the podspec's built-in backends (Metal; for
#      llama.rn BLAS too), but not Metal with the package's disable_metal=1
#      (RNWHISPER_DISABLE_METAL, RNLLAMA_DISABLE_METAL); given an unserved release's package it
#      refuses, naming the served releases.
#   2. ios/apply.sh on the podspec of every whisper.rn release from 0.4.3 to 0.7.4, every
#      llama.rn 0.12 release (each family) and the llama.rn 0.13 preview (its layer in
#      vendor/llama.cpp/ggml/src), read by Ruby with a stand-in for Pod::Spec
#      (test/podspec.rb) before and after, the podspec's blocks finding this checkout as an app's
#      node_modules/wsp-ggml-backend (test/podspec-check.sh): built from source, the pod's sources
#      over the package's files lose exactly the backend-layer files the package has, and nothing
#      else (Metal's sources and the resources stay); it vendors the framework, copied into the
#      package; without the package's from_source variable it builds from source, with it 0 the
#      prebuilt pod is unchanged; a copy where no node_modules holds wsp-ggml-backend builds what
#      npm's podspec builds; applied again, the podspec stays byte for byte the same. A release
#      the release table (releases.txt) does not serve must be refused, with the podspec
#      untouched; its podspec edit is then checked through a copy of the integration whose table
#      serves it (what the family gets once it is served).
#   3. apply.sh refuses a framework that build-xcframework.sh made for another release.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$root"
export LC_ALL=C  # comm and sort as Ruby sorts
releases=($("$root/scripts/release/release-table.sh" releases whisper.rn)
          $("$root/scripts/release/release-table.sh" releases llama.rn | sed 's/^/llama.rn@/')
          $("$root/scripts/release/release-table.sh" newest --previews))
work="$root/build/integration-ios"
rm -rf "$work"
# the podspecs' blocks find this checkout as an app's node_modules holds the package
mkdir -p "$work/node_modules"
ln -s "$root" "$work/node_modules/wsp-ggml-backend"

# 1. the cargo part: the release's functions; the podspec's built-in backends registered at
# start-up (the archive calls <prefix>ggml_backend_<name>_reg, which the pod's sources define),
# Metal not with the package's disable_metal=1
for release in 0.7.4 llama.rn@0.12.9 $("$root/scripts/release/release-table.sh" newest --previews); do
    wsp_release "$release"
    ref=$(reference "$release")
    for metal in "" 1; do
        built=$(env "$wsp_disable_metal=$metal" "$here/ios/build-xcframework.sh" "$ref" aarch64-apple-ios)
        built=${built%%$'\n'*}
        echo "ios-on-linux: ${built//$root\//}"
        verdict=$(scripts/phones/mobile-libs.sh --check "${built##*: }" "$release")
        echo "ios-on-linux: ${verdict#"$root/"}"
        calls=$({ llvm-nm -u "${built##*: }" 2>/dev/null || true; } | sed -n "s/^_${wsp_prefix}ggml_backend_\(.*\)_reg$/\1/p" | sort -u | paste -sd ' ')
        expected=$(echo $wsp_ios_builtins | tr ' ' '\n' | { if [ -n "$metal" ]; then grep -vx metal; else cat; fi; } | sort | paste -sd ' ')
        if [ "$calls" != "$expected" ]; then
            echo "ios-on-linux: $wsp_disable_metal='$metal': the archive registers [$calls], expected [$expected]" >&2
            exit 1
        fi
        echo "ios-on-linux: $wsp_disable_metal='$metal': the archive registers $calls"
    done
done
# a release the table does not serve: a package that calls itself 0.0.0 (every stable release
# on npm is served)
unserved=0.0.0
mkdir -p "$work/unserved"
sed "s/\"version\": *\"[^\"]*\"/\"version\": \"$unserved\"/" "$(reference 0.4.3)/package.json" > "$work/unserved/package.json"
if "$here/ios/build-xcframework.sh" "$work/unserved" aarch64-apple-ios >/dev/null 2>"$work/refused.log" \
    || ! grep -qF "whisper.rn $unserved is not served; served releases: $(wsp_served whisper.rn)" "$work/refused.log"; then
    echo "ios-on-linux: build-xcframework.sh did not refuse whisper.rn $unserved" >&2
    exit 1
fi
echo "ios-on-linux: build-xcframework.sh refuses whisper.rn $unserved: $(cat "$work/refused.log")"

# A stand-in for build-xcframework.sh's output: the framework and the release it was built for.
framework() {
    rm -rf "$work/fw"
    mkdir -p "$work/fw/WspGgmlBackend.xcframework"
    echo "stand-in" > "$work/fw/WspGgmlBackend.xcframework/Info.plist"
    echo "$1 $wsp_ios_builtins" > "$work/fw/WspGgmlBackend.xcframework.release"
    echo "$work/fw/WspGgmlBackend.xcframework"
}

# package REF DIR: a copy of the package's podspec and package.json beside its other files (not
# its ios/ sources, which need React Native's headers)
package() {
    mkdir -p "$2/ios"
    cp "$1/$wsp_podspec" "$1/package.json" "$2/"
    for entry in "$1"/*; do
        case "${entry##*/}" in "$wsp_podspec" | package.json | ios) ;; *) ln -s "$entry" "$2/" ;; esac
    done
}

fail() {
    echo "ios-on-linux: $release: $*" >&2
    exit 1
}

# 2. the podspec of every release
for release in "${releases[@]}"; do
    ref=$(reference "$release")
    pkg="$work/$release"
    wsp_release "$ref" 2>/dev/null || true  # (the package's facts are set for an unserved release too)
    package "$ref" "$pkg"
    podspec=$wsp_podspec
    if wsp_release "$release" 2>/dev/null; then
        build=$wsp_build
        apply="$here/ios/apply.sh"
        served="served by the family of $wsp_releases"
    else
        # refused, the podspec untouched; then the edit, through a table that serves the family
        if "$here/ios/apply.sh" "$pkg" "$(framework "$release")" >/dev/null 2>"$work/refused.log"; then
            fail "apply.sh accepted a release the release table does not serve"
        fi
        grep -qF "whisper.rn $release is not served; served releases: $(wsp_served whisper.rn)" "$work/refused.log" \
            || fail "apply.sh's refusal does not name the served releases: $(cat "$work/refused.log")"
        cmp -s "$ref/$podspec" "$pkg/$podspec" || fail "refused, but the podspec changed"
        copy="$work/copy-$release"
        mkdir -p "$copy/integrations/react-native/ios" "$copy/scripts/release"
        cp "$here/release.sh" "$copy/integrations/react-native/"
        cp "$here/ios/apply.sh" "$copy/integrations/react-native/ios/"
        cp "$root/scripts/release/release-table.sh" "$copy/scripts/release/"
        { cat "$root/releases.txt"; echo "test-$release releases $release"; } > "$copy/releases.txt"
        build=$release
        apply="$copy/integrations/react-native/ios/apply.sh"
        served="not served: refused; checked through a table serving it"
    fi
    "$apply" "$pkg" "$(framework "$build")" >"$work/apply.log" 2>&1 || fail "apply.sh failed: $(cat "$work/apply.log")"
    cp "$pkg/$podspec" "$work/once.podspec"
    "$apply" "$pkg" "$(framework "$build")" >/dev/null 2>&1
    cmp -s "$work/once.podspec" "$pkg/$podspec" || fail "a second apply.sh changed the podspec"
    [ -f "$pkg/ios/WspGgmlBackend.xcframework/Info.plist" ] || fail "the framework was not copied into the package"

    verdict=$("$here/test/podspec-check.sh" "$ref" "$pkg") || fail "the podspec check failed"
    echo "ios-on-linux: $wsp_package ${release#*@} ($served): $verdict; idempotent"
done

# 3. a framework built for another release
release=0.7.4
wsp_release "$release"
pkg="$work/mismatch"
package "$(reference $release)" "$pkg"
if "$here/ios/apply.sh" "$pkg" "$(framework 0.4.3)" >/dev/null 2>"$work/refused.log"; then
    fail "apply.sh took a framework built for 0.4.3"
fi
grep -qF "was built for whisper.rn 0.4.3" "$work/refused.log" || fail "unexpected refusal: $(cat "$work/refused.log")"
cmp -s "$(reference $release)/whisper-rn.podspec" "$pkg/whisper-rn.podspec" || fail "refused, but the podspec changed"
echo "ios-on-linux: apply.sh refuses a framework built for 0.4.3 on whisper.rn 0.7.4"
