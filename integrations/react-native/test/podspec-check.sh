#!/usr/bin/env bash
# podspec-check.sh REF PKG: the podspec of PKG (a package changed by ios/apply.sh, in a folder
# with node_modules/wsp-ggml-backend above it) against the same release's podspec as npm gives it
# (REF), both read by Ruby with the stand-in for Pod::Spec (test/podspec.rb). Built from source,
# the pod must lose exactly the backend-layer files the package has and nothing else of its C/C++
# (Metal's sources and the resources stay) and vendor the framework; without the package's
# from_source variable it must build from source, and with it 0 be the prebuilt pod, unchanged.
# A copy of the podspec where no node_modules holds wsp-ggml-backend (the package uninstalled)
# must build exactly what REF's does, however the variable is set. Prints the verdict; fails,
# saying why, otherwise. Used by ios-on-linux.sh and the npm package's test.
set -euo pipefail
source "$(dirname "$0")/common.sh"
export LC_ALL=C  # comm and sort as Ruby sorts
ref=$1 pkg=$2
wsp_release "$pkg" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
    echo "podspec-check: $wsp_package $wsp_version: $*" >&2
    exit 1
}

# pod DIR [from-source|prebuilt]: what the podspec in DIR builds, with the package's from_source
# variable 1, 0 or (neither) unset
pod() {
    case "${2:-}" in
        from-source) env "$wsp_from_source=1" ruby "$here/test/podspec.rb" "$1" ;;
        prebuilt) env "$wsp_from_source=0" ruby "$here/test/podspec.rb" "$1" ;;
        *) env -u "$wsp_from_source" ruby "$here/test/podspec.rb" "$1" ;;
    esac
}

# the same, without the package's ios/ sources (REF has none)
pod_beside_ios() {
    pod "$@" | grep -v '^source ios/' || true
}

pod "$ref" from-source > "$work/before"
pod "$pkg" from-source > "$work/after"
# the C and C++ side: the package's files but its ios/ sources (REF, as
# scripts/fetch/fetch-reference.sh unpacks it, has none but where it keeps the whole package)
grep '^source ' "$work/before" | cut -d' ' -f2 | grep -v '^ios/' > "$work/before.sources"
grep '^source ' "$work/after" | cut -d' ' -f2 | grep -v '^ios/' > "$work/after.sources"
layer=$(cd "$ref" && ls "$wsp_layer"/ggml-backend*.cpp | sort)
removed=$(comm -23 "$work/before.sources" "$work/after.sources")
added=$(comm -13 "$work/before.sources" "$work/after.sources")
[ "$removed" = "$layer" ] || fail "built from source, the pod left out [${removed//$'\n'/ }], not the layer [${layer//$'\n'/ }]"
[ -z "$added" ] || fail "built from source, the pod gained [${added//$'\n'/ }]"
metal_before=$(grep -cE '/ggml-metal[^/]*(/[^/]+)?\.(m|mm|cpp|c)$' "$work/before.sources" || true)
metal_after=$(grep -cE '/ggml-metal[^/]*(/[^/]+)?\.(m|mm|cpp|c)$' "$work/after.sources" || true)
[ "$metal_before" -gt 0 ] && [ "$metal_after" -eq "$metal_before" ] \
    || fail "Metal's sources: $metal_before before, $metal_after after"
[ "$(grep '^resource ' "$work/before")" = "$(grep '^resource ' "$work/after")" ] || fail "the resources changed"
grep -qx 'framework ios/WspGgmlBackend.xcframework' "$work/after" || fail "built from source, the framework is not vendored"
! grep -q 'WspGgmlBackend' "$work/before" || fail "the reference already vendors WspGgmlBackend"
# pod install puts the framework in the pod when the package has none for its release
if [ "$(cat "$pkg/ios/WspGgmlBackend.xcframework.release" 2>/dev/null)" = "$wsp_build $wsp_ios_builtins" ]; then
    ! grep -q '^build ' "$work/after" || fail "pod install would make a framework the package has"
    framework="the framework in the pod"
else
    grep -q "^build .*/integrations/react-native/ios/build-xcframework.sh --out $pkg/ios $pkg\$" "$work/after" \
        || fail "pod install would not make the framework"
    framework="pod install makes the framework"
fi
[ "$(pod_beside_ios "$ref" prebuilt)" = "$(pod_beside_ios "$pkg" prebuilt)" ] || fail "the prebuilt branch changed"
[ "$(pod "$pkg")" = "$(pod "$pkg" from-source)" ] || fail "without $wsp_from_source, the pod does not build from source"
# the package uninstalled: a copy of the podspec beside the package's files, with no node_modules
# above it
alone=$(mktemp -d)
trap 'rm -rf "$work" "$alone"' EXIT
cp "$pkg/$wsp_podspec" "$pkg/package.json" "$alone/"
for entry in "$(cd "$pkg" && pwd -P)"/*; do
    case "${entry##*/}" in "$wsp_podspec" | package.json | ios) ;; *) ln -s "$entry" "$alone/" ;; esac
done
for how in "" from-source prebuilt; do
    [ "$(pod_beside_ios "$ref" $how)" = "$(pod_beside_ios "$alone" $how)" ] \
        || fail "without wsp-ggml-backend installed, the pod differs from npm's (${how:-$wsp_from_source unset})"
done
echo "from source, $(wc -l < "$work/before.sources") files of the package's C/C++ -> $(wc -l < "$work/after.sources"): left out exactly $(echo $layer | sed "s|$wsp_layer/||g") of $wsp_layer/; $metal_after Metal sources and the resources kept; framework vendored ($framework); from source by default, prebuilt branch unchanged with $wsp_from_source=0; the package uninstalled, the pod as npm gives it"
