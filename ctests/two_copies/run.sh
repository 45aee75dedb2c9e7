#!/usr/bin/env bash
# Two packages' copies of the library in one process: builds the example-side target of two
# build folders of this project (families with different prefixes, each configured with the tests
# on), then ctests/two_copies against them, and runs its tests.
#   ctests/two_copies/run.sh <first build folder> <second build folder> [<work folder>]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -lt 2 ]; then
    echo "usage: ctests/two_copies/run.sh <first build folder> <second build folder> [<work folder>]" >&2
    exit 2
fi
first=$(cd "$1" && pwd) second=$(cd "$2" && pwd) work=${3:-$root/build/two-copies}
for build in "$first" "$second"; do
    cmake --build "$build" -j "$(nproc)" --target example-side >/dev/null
done
cmake -S "$root/ctests/two_copies" -B "$work" -DFIRST_BUILD="$first" -DSECOND_BUILD="$second" >/dev/null
cmake --build "$work" >/dev/null
ctest --test-dir "$work" --output-on-failure
