#!/usr/bin/env bash
# Tests ios/ as far as Linux allows: the cargo part of build-xcframework.sh for the device
# (lipo and xcodebuild are macOS tools; the simulator targets' standard libraries are not always
# installable here), then ios/apply.sh on whisper.rn 0.4.3's own podspec: applied twice, the
# build-from-source branch must exclude the two backend files and vendor the framework, once.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
here=integrations/whisper.rn

"$here/ios/build-xcframework.sh" aarch64-apple-ios
scripts/fetch-reference.sh
work="$root/build/integration-ios"
rm -rf "$work"
mkdir -p "$work"
cp third_party/whisper.rn/whisper-rn.podspec "$work/"
"$here/ios/apply.sh" "$work" 2>/dev/null
"$here/ios/apply.sh" "$work" >/dev/null 2>&1
for line in 's.exclude_files = "cpp/ggml-backend.cpp", "cpp/ggml-backend-reg.cpp"' \
            's.vendored_frameworks = "ios/WspGgmlBackend.xcframework"'; do
    count=$(grep -cF "$line" "$work/whisper-rn.podspec")
    [ "$count" -eq 1 ] || { echo "ios-on-linux: podspec has '$line' $count times" >&2; exit 1; }
done
# the lines sit in the build-from-source branch: right after its `if`
awk '/RNWHISPER_BUILD_FROM_SOURCE"\] == "1"/ { getline; getline; if ($0 !~ /exclude_files/) exit 1; found = 1 }
     END { exit !found }' "$work/whisper-rn.podspec" \
    || { echo "ios-on-linux: the podspec lines are not in the build-from-source branch" >&2; exit 1; }
echo "ios-on-linux: podspec changed in its build-from-source branch; device archive built"
