#!/usr/bin/env bash
# Builds the C conformance suite with AddressSanitizer and UBSan (CMake option
# GGMLRS_SANITIZE: test programs and the TEST fixture with ASan+UBSan, whisper.rn's
# ggml core with ASan) in build/asan, and runs it under ctest. The valgrind tests (memcheck,
# helgrind) are not registered in such a build, and the examples (end-to-end tests) are off.
#
#   scripts/checks/sanitize.sh [--release RELEASE] [ctest arguments...]
#
# RELEASE: any release of releases.txt (default 0.4.3; e.g. 0.7.4 for the meta backend and 2d
# tensor access), built in build/asan-<RELEASE>.
#
# JOBS (default: the number of cores) sets the build and test parallelism.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
jobs=${JOBS:-$(nproc)}
release=0.4.3
if [ "${1:-}" = "--release" ]; then
    release=$2
    shift 2
fi
build=build/asan-$release

"$root/scripts/fetch/fetch-reference.sh" "$release"
cmake -S . -B "$build" -DGGMLRS_WHISPER_RN_RELEASE="$release" -DGGMLRS_SANITIZE=ON \
    -DGGMLRS_EXAMPLES=OFF -DGGMLRS_CARGO_TARGET_DIR="$root/target" >/dev/null
cmake --build "$build" -j "$jobs" >/dev/null
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
