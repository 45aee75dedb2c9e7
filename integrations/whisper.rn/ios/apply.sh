#!/usr/bin/env bash
# Makes whisper.rn's podspec use wsp-ggml-backend when it builds from source
# (RNWHISPER_BUILD_FROM_SOURCE=1; the default prebuilt rnwhisper.xcframework has whisper.rn's own
# backend layer inside): in that branch it excludes cpp/ggml-backend.cpp and
# cpp/ggml-backend-reg.cpp and vendors ios/WspGgmlBackend.xcframework (CocoaPods takes vendored
# files from inside the pod), copied there from build-xcframework.sh's output when it exists.
# Idempotent.
#   integrations/whisper.rn/ios/apply.sh path/to/whisper.rn [path/to/WspGgmlBackend.xcframework]
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 path/to/whisper.rn [path/to/WspGgmlBackend.xcframework]" >&2; exit 2; }
podspec="$1/whisper-rn.podspec"
root=$(cd "$(dirname "$0")/../../.." && pwd)
built="${2:-$root/build/ios/WspGgmlBackend.xcframework}"
framework=ios/WspGgmlBackend.xcframework
[ -f "$podspec" ] || { echo "apply.sh: $podspec not found (is $1 whisper.rn's package?)" >&2; exit 1; }
if [ -d "$built" ]; then
    rm -rf "${1:?}/$framework"
    cp -R "$built" "$1/$framework"
else
    echo "apply.sh: $built not built yet (build-xcframework.sh, on macOS): copy it to $1/$framework" >&2
fi
marker="# wsp-ggml-backend"
if grep -qF "$marker" "$podspec"; then
    echo "apply.sh: $podspec already uses wsp-ggml-backend"
    exit 0
fi
branch='ENV\["RNWHISPER_BUILD_FROM_SOURCE"\] == "1"'
grep -qE "$branch" "$podspec" || { echo "apply.sh: $podspec has no RNWHISPER_BUILD_FROM_SOURCE branch" >&2; exit 1; }
tmp=$(mktemp)
awk -v branch="$branch" -v marker="$marker" -v framework="$framework" '
    { print }
    $0 ~ branch && !done {
        print "    " marker ": the backend layer comes from the Rust library"
        print "    s.exclude_files = \"cpp/ggml-backend.cpp\", \"cpp/ggml-backend-reg.cpp\""
        print "    s.vendored_frameworks = \"" framework "\""
        done = 1
    }' "$podspec" > "$tmp"
mv "$tmp" "$podspec"
echo "apply.sh: $podspec excludes ggml-backend.cpp and ggml-backend-reg.cpp and vendors $framework"
