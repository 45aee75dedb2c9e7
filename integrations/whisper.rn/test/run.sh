#!/usr/bin/env bash
# The integration's tests (see README.md beside test/): Android's CMake change built for arm64,
# and the iOS script's cargo part with the podspec change.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/android-on-linux.sh"
"$here/ios-on-linux.sh"
