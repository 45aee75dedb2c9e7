#!/usr/bin/env bash
# The integration's tests (see README.md beside test/): whisper.rn's own Android build changed by
# android/ for each family of the release table, releases.txt (its newest release, arm64 only), the
# refusal of an unserved release, and the iOS scripts: the cargo part, and the podspec change for
# every release from 0.4.3 to 0.7.4.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../release.sh"
for build in $(wsp_builds); do
    "$here/android-on-linux.sh" "$build"
done
"$here/android-on-linux.sh" --unserved
"$here/ios-on-linux.sh"
