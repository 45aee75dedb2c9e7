#!/usr/bin/env bash
# Makes whisper.rn's or llama.rn's podspec use wsp-ggml-backend when it builds from source (the
# release table's from_source: RNWHISPER_BUILD_FROM_SOURCE=1, RNLLAMA_BUILD_FROM_SOURCE=1; by
# default the pod vendors a prebuilt framework with the package's own backend layer inside). The
# package's release must be one the release table (releases.txt) serves (else it stops, naming
# them). At the end of the spec, after the package's own assignments (CocoaPods keeps an
# attribute's last value), a block for that branch adds the layer files the package has
# (cpp/ggml-backend.cpp, ggml-backend-reg.cpp and, from whisper.rn 0.6, ggml-backend-meta.cpp and
# ggml-backend-dl.cpp) to the spec's exclude_files, keeping the package's own exclusions, and
# vendors ios/WspGgmlBackend.xcframework (CocoaPods takes vendored files from inside the pod),
# copied there from build-xcframework.sh's output when it exists and was built for the package's
# release; else pod install builds it there (the block runs build-xcframework.sh when the
# framework beside it is missing or was built for another release). Where the table forces the source build (force_source: llama.rn), the spec's first line
# makes it the default (ENV[...] ||= "1"; the app's 0 still chooses the prebuilt framework).
# Idempotent: a podspec that has the block is left as it is.
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
built="${2:-$(cd "$here/../.." && pwd)/build/ios/WspGgmlBackend.xcframework}"
framework=ios/WspGgmlBackend.xcframework

if [ -d "$built" ]; then
    # build-xcframework.sh records the release whose ABI the framework has beside it
    made_for=$(cat "$built.release" 2>/dev/null || echo "an unknown release")
    if [ "$made_for" != "$wsp_build" ]; then
        echo "apply.sh: $built was built for $wsp_package ${made_for#*@}, $package is $wsp_version (built as ${wsp_build#*@}): run build-xcframework.sh $package" >&2
        exit 1
    fi
    rm -rf "${package:?}/$framework"
    cp -R "$built" "$package/$framework"
    cp "$built.release" "$package/$framework.release"
else
    echo "apply.sh: $built not built yet: pod install builds it (build-xcframework.sh, on macOS)" >&2
fi

marker="# wsp-ggml-backend"
if grep -qF "$marker" "$podspec"; then
    echo "apply.sh: $podspec already uses wsp-ggml-backend"
    exit 0
fi
grep -qF 'Pod::Spec.new do |s|' "$podspec" || { echo "apply.sh: $podspec has no 'Pod::Spec.new do |s|'" >&2; exit 1; }
branch="ENV[\"$wsp_from_source\"] == \"1\""
grep -qF "$branch" "$podspec" || { echo "apply.sh: $podspec has no $wsp_from_source branch" >&2; exit 1; }
# the spec block's own end: the last line that is `end` alone at the margin
last_end=$(grep -n '^end[[:space:]]*$' "$podspec" | tail -n 1 | cut -d: -f1)
[ -n "$last_end" ] || { echo "apply.sh: $podspec: no 'end' closing the spec" >&2; exit 1; }
layer=""
names=""
for file in ggml-backend.cpp ggml-backend-reg.cpp ggml-backend-meta.cpp ggml-backend-dl.cpp; do
    if [ -f "$package/cpp/$file" ]; then
        layer="$layer, \"cpp/$file\""
        names="$names $file"
    fi
done
[ -n "$layer" ] || { echo "apply.sh: $package/cpp has no ggml-backend.cpp" >&2; exit 1; }

tmp="$podspec.wsp-new"
force=""
if [ "$wsp_force_source" = yes ]; then force="ENV[\"$wsp_from_source\"] ||= \"1\""; fi
awk -v last="$last_end" -v marker="$marker" -v package="$wsp_package" -v version="$wsp_version" -v branch="$branch" \
    -v layer="$layer" -v framework="$framework" -v force="$force" -v build="$wsp_build" \
    -v script="$here/ios/build-xcframework.sh" '
    NR == 1 && force != "" {
        print marker " (integrations/react-native/ios/apply.sh): built from source unless the app says 0"
        print force
    }
    NR == last {
        print ""
        print "  " marker " (integrations/react-native/ios/apply.sh, " package " " version "): built from source,"
        print "  # the backend layer comes from the Rust library. Last in the spec, so that no later"
        print "  # exclude_files replaces these; the package'"'"'s own exclusions stay."
        print "  if " branch
        print "    # the framework for this release, built by cargo at pod install when it is missing"
        print "    # or was built for another release (as the package'"'"'s Metal switch says)"
        print "    made_for = File.read(File.join(__dir__, \"" framework ".release\")).strip rescue nil"
        print "    unless made_for == \"" build "\""
        print "      system(\"bash\", \"" script "\", \"--out\", File.join(__dir__, \"ios\"), __dir__) or"
        print "        raise \"wsp-ggml-backend: building " framework " failed (" script ")\""
        print "    end"
        print "    s.exclude_files = [*s.attributes_hash[\"exclude_files\"]" layer "]"
        print "    s.vendored_frameworks = [*s.attributes_hash[\"vendored_frameworks\"], \"" framework "\"]"
        print "  end"
    }
    { print }' "$podspec" > "$tmp"
# a new file in the podspec's place (a package manager's store may share it as a hard link)
mv "$tmp" "$podspec"
echo "apply.sh: $wsp_package $wsp_version: built from source${force:+ (the default now)}, $podspec leaves out$names and vendors $framework"
