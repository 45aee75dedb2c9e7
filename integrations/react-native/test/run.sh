#!/usr/bin/env bash
# The integration's tests (see README.md beside test/): the package's own Android build changed by
# android/ for each family of the release table, releases.txt (its newest release, arm64 only;
# whisper.rn's and llama.rn's, the llama.rn 0.13 preview's too), the refusal of an unserved
# release, and the iOS scripts: the cargo part, and the podspec change for every whisper.rn
# release, every llama.rn 0.12 release and the preview.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for build in $("$here/../../../scripts/release/release-table.sh" newest --apps) \
    $("$here/../../../scripts/release/release-table.sh" newest --previews); do
    "$here/android-on-linux.sh" "$build"
done
"$here/android-on-linux.sh" --unserved
"$here/ios-on-linux.sh"
