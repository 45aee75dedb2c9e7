#!/usr/bin/env bash
# Tests ios/ as far as Linux allows:
#   1. build-xcframework.sh's cargo part for the device (lipo and xcodebuild are macOS tools; the
#      simulator targets' standard libraries are not always installable here), given whisper.rn
#      0.7.4's package: the archive defines 0.7.4's functions (scripts/mobile-libs.sh --check) and
#      registers Metal, but not with RNWHISPER_DISABLE_METAL=1; given an unserved release's
#      package it refuses, naming the served releases.
#   2. ios/apply.sh on the podspec of every whisper.rn release from 0.4.3 to 0.7.4 (each family),
#      read by Ruby with a stand-in for Pod::Spec (test/podspec.rb) before and after: built from
#      source, the pod's sources over the package's files lose exactly the backend-layer files the
#      package has, and nothing else (Metal's sources and the resources stay); it vendors the
#      framework, copied into the package; the prebuilt branch is unchanged; applied again, the
#      podspec stays byte for byte the same. A release the release table (releases.txt) does not
#      serve must be refused, with the podspec untouched; its podspec edit is then checked through
#      a copy of the integration whose table serves it (what the family gets once it is served).
#   3. apply.sh refuses a framework that build-xcframework.sh made for another release.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$root"
export LC_ALL=C  # comm and sort as Ruby sorts
releases=(0.4.3 0.5.1 0.5.2 0.5.3 0.5.4 0.5.5 0.6.0 0.7.3 0.7.4)
work="$root/build/integration-ios"
rm -rf "$work"
mkdir -p "$work"

# 1. the cargo part: 0.7.4's functions; Metal registered at start-up (the archive calls
# wsp_ggml_backend_metal_reg, which the pod's Metal sources define) unless RNWHISPER_DISABLE_METAL=1
ref=$(reference 0.7.4)
for metal in "" 1; do
    built=$(RNWHISPER_DISABLE_METAL=$metal "$here/ios/build-xcframework.sh" "$ref" aarch64-apple-ios)
    built=${built%%$'\n'*}
    echo "ios-on-linux: ${built//$root\//}"
    verdict=$(scripts/mobile-libs.sh --check "${built##*: }" 0.7.4)
    echo "ios-on-linux: ${verdict#"$root/"}"
    calls_metal=$({ llvm-nm -u "${built##*: }" 2>/dev/null || true; } | grep -c '_wsp_ggml_backend_metal_reg$' || true)
    if [ -z "$metal" ] && [ "$calls_metal" -eq 0 ] || [ -n "$metal" ] && [ "$calls_metal" -ne 0 ]; then
        echo "ios-on-linux: RNWHISPER_DISABLE_METAL='$metal', but the archive calls wsp_ggml_backend_metal_reg $calls_metal times" >&2
        exit 1
    fi
    echo "ios-on-linux: RNWHISPER_DISABLE_METAL='$metal': the archive $([ -n "$metal" ] && echo "does not register" || echo "registers") Metal"
done
# a release the table does not serve: a package that calls itself 0.0.0 (every stable release
# on npm is served)
unserved=0.0.0
mkdir -p "$work/unserved"
sed "s/\"version\": *\"[^\"]*\"/\"version\": \"$unserved\"/" "$(reference 0.4.3)/package.json" > "$work/unserved/package.json"
if "$here/ios/build-xcframework.sh" "$work/unserved" aarch64-apple-ios >/dev/null 2>"$work/refused.log" \
    || ! grep -qF "whisper.rn $unserved is not served; served releases: $(wsp_served)" "$work/refused.log"; then
    echo "ios-on-linux: build-xcframework.sh did not refuse whisper.rn $unserved" >&2
    exit 1
fi
echo "ios-on-linux: build-xcframework.sh refuses whisper.rn $unserved: $(cat "$work/refused.log")"

# A stand-in for build-xcframework.sh's output: the framework and the release it was built for.
framework() {
    rm -rf "$work/fw"
    mkdir -p "$work/fw/WspGgmlBackend.xcframework"
    echo "stand-in" > "$work/fw/WspGgmlBackend.xcframework/Info.plist"
    echo "$1" > "$work/fw/WspGgmlBackend.xcframework.release"
    echo "$work/fw/WspGgmlBackend.xcframework"
}

# package RELEASE DIR: a copy of the package's podspec and package.json beside its sources
package() {
    mkdir -p "$2/ios"
    cp "$1/whisper-rn.podspec" "$1/package.json" "$2/"
    ln -s "$1/cpp" "$2/cpp"
}

# pod DIR [from-source]: what the podspec in DIR builds, read by test/podspec.rb
pod() {
    if [ "${2:-}" = from-source ]; then
        RNWHISPER_BUILD_FROM_SOURCE=1 ruby "$here/test/podspec.rb" "$1"
    else
        env -u RNWHISPER_BUILD_FROM_SOURCE ruby "$here/test/podspec.rb" "$1"
    fi
}

fail() {
    echo "ios-on-linux: whisper.rn $release: $*" >&2
    exit 1
}

# 2. the podspec of every release
for release in "${releases[@]}"; do
    ref=$(reference "$release")
    pkg="$work/$release"
    package "$ref" "$pkg"
    if wsp_release "$release" 2>/dev/null; then
        build=$wsp_build
        apply="$here/ios/apply.sh"
        served="served by the family of $wsp_releases"
    else
        # refused, the podspec untouched; then the edit, through a table that serves the family
        if "$here/ios/apply.sh" "$pkg" "$(framework "$release")" >/dev/null 2>"$work/refused.log"; then
            fail "apply.sh accepted a release the release table does not serve"
        fi
        grep -qF "whisper.rn $release is not served; served releases: $(wsp_served)" "$work/refused.log" \
            || fail "apply.sh's refusal does not name the served releases: $(cat "$work/refused.log")"
        cmp -s "$ref/whisper-rn.podspec" "$pkg/whisper-rn.podspec" || fail "refused, but the podspec changed"
        copy="$work/copy-$release"
        mkdir -p "$copy/integrations/whisper.rn/ios" "$copy/scripts"
        cp "$here/release.sh" "$copy/integrations/whisper.rn/"
        cp "$here/ios/apply.sh" "$copy/integrations/whisper.rn/ios/"
        cp "$root/scripts/release-table.sh" "$copy/scripts/"
        { cat "$root/releases.txt"; echo "test-$release releases $release"; } > "$copy/releases.txt"
        build=$release
        apply="$copy/integrations/whisper.rn/ios/apply.sh"
        served="not served: refused; checked through a table serving it"
    fi
    "$apply" "$pkg" "$(framework "$build")" >"$work/apply.log" 2>&1 || fail "apply.sh failed: $(cat "$work/apply.log")"
    cp "$pkg/whisper-rn.podspec" "$work/once.podspec"
    "$apply" "$pkg" "$(framework "$build")" >/dev/null 2>&1
    cmp -s "$work/once.podspec" "$pkg/whisper-rn.podspec" || fail "a second apply.sh changed the podspec"
    [ -f "$pkg/ios/WspGgmlBackend.xcframework/Info.plist" ] || fail "the framework was not copied into the package"

    pod "$ref" from-source > "$work/before"
    pod "$pkg" from-source > "$work/after"
    grep '^source ' "$work/before" | cut -d' ' -f2 > "$work/before.sources"
    grep '^source ' "$work/after" | cut -d' ' -f2 > "$work/after.sources"
    layer=$(cd "$ref" && ls cpp/ggml-backend*.cpp | sort)
    removed=$(comm -23 "$work/before.sources" "$work/after.sources")
    added=$(comm -13 "$work/before.sources" "$work/after.sources")
    [ "$removed" = "$layer" ] || fail "built from source, the pod left out [${removed//$'\n'/ }], not the layer [${layer//$'\n'/ }]"
    [ -z "$added" ] || fail "built from source, the pod gained [${added//$'\n'/ }]"
    metal_before=$(grep -cE '^cpp/ggml-metal.*\.(m|mm|cpp|c)$' "$work/before.sources" || true)
    metal_after=$(grep -cE '^cpp/ggml-metal.*\.(m|mm|cpp|c)$' "$work/after.sources" || true)
    [ "$metal_before" -gt 0 ] && [ "$metal_after" -eq "$metal_before" ] \
        || fail "Metal's sources: $metal_before before, $metal_after after"
    [ "$(grep '^resource ' "$work/before")" = "$(grep '^resource ' "$work/after")" ] || fail "the resources changed"
    grep -qx 'framework ios/WspGgmlBackend.xcframework' "$work/after" || fail "built from source, the framework is not vendored"
    ! grep -q 'WspGgmlBackend' "$work/before" || fail "the reference already vendors WspGgmlBackend"
    [ "$(pod "$ref")" = "$(pod "$pkg")" ] || fail "the prebuilt branch changed"
    echo "ios-on-linux: whisper.rn $release ($served): from source, $(wc -l < "$work/before.sources") files -> $(wc -l < "$work/after.sources"): left out exactly $(echo $layer | sed 's|cpp/||g'); $metal_after Metal sources and the resources kept; framework vendored; prebuilt branch unchanged; idempotent"
done

# 3. a framework built for another release
release=0.7.4
pkg="$work/mismatch"
package "$(reference $release)" "$pkg"
if "$here/ios/apply.sh" "$pkg" "$(framework 0.4.3)" >/dev/null 2>"$work/refused.log"; then
    fail "apply.sh took a framework built for 0.4.3"
fi
grep -qF "was built for whisper.rn 0.4.3" "$work/refused.log" || fail "unexpected refusal: $(cat "$work/refused.log")"
cmp -s "$(reference $release)/whisper-rn.podspec" "$pkg/whisper-rn.podspec" || fail "refused, but the podspec changed"
echo "ios-on-linux: apply.sh refuses a framework built for 0.4.3 on whisper.rn 0.7.4"
