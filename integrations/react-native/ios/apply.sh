#!/usr/bin/env bash
# Makes whisper.rn's or llama.rn's podspec use wsp-ggml-backend while the npm package
# wsp-ggml-backend is installed (found as Node resolves a package: in a node_modules folder above
# the podspec; nothing absolute is written, so a moved app or pnpm store still works, and once the
# package is gone nothing here changes the pod). Two blocks:
#  - first in the file: the package found, the pod builds its C++ from source (the release
#    table's from_source variable, RNWHISPER_BUILD_FROM_SOURCE or RNLLAMA_BUILD_FROM_SOURCE,
#    defaults to 1; by default the pod vendors a prebuilt framework with the package's own
#    backend layer inside), unless the app sets it to 0;
#  - last in the spec, after the package's own assignments (CocoaPods keeps an attribute's last
#    value): built from source, the layer files the package has (ggml-backend.cpp,
#    ggml-backend-reg.cpp and, from whisper.rn 0.6, ggml-backend-meta.cpp and
#    ggml-backend-dl.cpp; in cpp/, from llama.rn 0.13 in vendor/llama.cpp/ggml/src/) join the
#    spec's exclude_files, keeping the package's own exclusions,
#    and the pod vendors ios/WspGgmlBackend.xcframework (CocoaPods takes vendored files from
#    inside the pod), which pod install puts there when it is missing or was made for another
#    release or other built-in backends (ios/build-xcframework.sh of the package found: the
#    npm package's prebuilt framework when it has one for them, else built by cargo).
# A framework named as the second argument is copied there now (it must have been built for the
# package's release). The package's release must be one the release table (releases.txt) serves
# (else it stops, naming them). The blocks written earlier, by any version of the scripts, are
# replaced: the podspec is the same after any number of runs.
#   integrations/react-native/ios/apply.sh path/to/package [path/to/WspGgmlBackend.xcframework]
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 path/to/whisper.rn|path/to/llama.rn [path/to/WspGgmlBackend.xcframework]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../release.sh
source "$here/release.sh"
package=$1
wsp_release "$package" || exit 1
podspec="$package/$wsp_podspec"
[ -f "$podspec" ] || { echo "apply.sh: $podspec not found (is $package $wsp_package's package?)" >&2; exit 1; }
framework=ios/WspGgmlBackend.xcframework
# what build-xcframework.sh records in the framework's .release: the release it was built as and
# its built-in backends, with Metal or without
with_metal="$wsp_build $wsp_ios_builtins"
without_metal="$wsp_build $(echo $wsp_ios_builtins | tr ' ' '\n' | grep -vx metal | paste -sd ' ')"

if [ $# -eq 2 ]; then
    made_for=$(cat "$2.release" 2>/dev/null || echo "an unknown release")
    if [ "$made_for" != "$with_metal" ] && [ "$made_for" != "$without_metal" ]; then
        echo "apply.sh: $2 was built for $wsp_package ${made_for#*@}, $package is $wsp_version (built as ${wsp_build#*@}): run build-xcframework.sh $package" >&2
        exit 1
    fi
    rm -rf "${package:?}/$framework"
    mkdir -p "$package/ios"
    cp -R "$2" "$package/$framework"
    cp "$2.release" "$package/$framework.release"
fi

grep -qF 'Pod::Spec.new do |s|' "$podspec" || { echo "apply.sh: $podspec has no 'Pod::Spec.new do |s|'" >&2; exit 1; }
branch="ENV[\"$wsp_from_source\"] == \"1\""
grep -qF "$branch" "$podspec" || { echo "apply.sh: $podspec has no $wsp_from_source branch" >&2; exit 1; }
layer=""
names=""
for file in ggml-backend.cpp ggml-backend-reg.cpp ggml-backend-meta.cpp ggml-backend-dl.cpp; do
    if [ -f "$package/$wsp_layer/$file" ]; then
        layer="$layer, \"$wsp_layer/$file\""
        names="$names $file"
    fi
done
[ -n "$layer" ] || { echo "apply.sh: $package/$wsp_layer has no ggml-backend.cpp" >&2; exit 1; }

wsp_without_blocks "$podspec" > "$podspec.wsp-old"
# the spec block's own end: the last line that is `end` alone at the margin
last_end=$(grep -n '^end[[:space:]]*$' "$podspec.wsp-old" | tail -n 1 | cut -d: -f1)
[ -n "$last_end" ] || { rm "$podspec.wsp-old"; echo "apply.sh: $podspec: no 'end' closing the spec" >&2; exit 1; }
awk -v last="$last_end" -v from_source="$wsp_from_source" -v branch="$branch" -v layer="$layer" \
    -v framework="$framework" -v with_metal="$with_metal" -v without_metal="$without_metal" \
    -v disable_metal="$wsp_disable_metal" -v package="$wsp_package" '
    NR == 1 {
        print "# wsp-ggml-backend begin: while the npm package wsp-ggml-backend is installed (a node_modules"
        print "# folder above this one holds it), " package " builds from source, with the backend layer of"
        print "# its Rust library, unless the app sets " from_source "=0; once it is gone, nothing here"
        print "# changes the pod. Written by its ios/apply.sh, replaced when it applies itself again."
        print "require \"pathname\""
        print "wsp_ggml_backend = Pathname(__dir__).ascend.map { |dir| dir + \"node_modules/wsp-ggml-backend\" }"
        print "                                     .find { |dir| (dir + \"integrations/react-native/ios/build-xcframework.sh\").file? }"
        print "ENV[\"" from_source "\"] ||= \"1\" if wsp_ggml_backend"
        print "# wsp-ggml-backend end"
    }
    NR == last {
        print ""
        print "  # wsp-ggml-backend begin: built from source while the package is installed, the backend layer"
        print "  # comes from its library. Last in the spec, so that no later exclude_files replaces these;"
        print "  # the package'"'"'s own exclusions stay."
        print "  if wsp_ggml_backend && " branch
        print "    # the framework for this release and built-in backends (as the Metal switch says), put in"
        print "    # the pod at pod install when it is missing or was made for others"
        print "    made_for = ENV[\"" disable_metal "\"] == \"1\" ? \"" without_metal "\" : \"" with_metal "\""
        print "    unless (File.read(File.join(__dir__, \"" framework ".release\")).strip rescue nil) == made_for"
        print "      script = (wsp_ggml_backend + \"integrations/react-native/ios/build-xcframework.sh\").to_s"
        print "      system(\"bash\", script, \"--out\", File.join(__dir__, \"ios\"), __dir__) or"
        print "        raise \"wsp-ggml-backend: making " framework " failed (#{script})\""
        print "    end"
        print "    s.exclude_files = [*s.attributes_hash[\"exclude_files\"]" layer "]"
        print "    s.vendored_frameworks = [*s.attributes_hash[\"vendored_frameworks\"], \"" framework "\"]"
        print "  end"
        print "  # wsp-ggml-backend end"
    }
    { print }' "$podspec.wsp-old" | wsp_write "$podspec"
rm "$podspec.wsp-old"
echo "apply.sh: $wsp_package $wsp_version: while wsp-ggml-backend is installed, built from source; $podspec leaves out$names and vendors $framework"
if [ "$(cat "$here/../../prebuilt/$(wsp_prebuilt_dir "$wsp_build")/ios/WspGgmlBackend.xcframework.release" 2>/dev/null)" = "$with_metal" ]; then
    echo "apply.sh: iOS: pod install puts the package's prebuilt framework in the pod: no Rust needed (with $wsp_disable_metal=1, cargo builds one)"
else
    echo "apply.sh: iOS: pod install builds the framework with cargo (Rust needed: rustup target add aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios)"
fi
