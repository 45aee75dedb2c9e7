#!/usr/bin/env bash
# Runs the tests, after installing what they need (scripts/setup.sh --tests, or --all).
#
#   scripts/test.sh         the default family (whisper.rn 0.4.3) in full: the style gates
#                           (rustfmt, clippy, the docs' counts), the layout check, the Rust unit
#                           tests, then the C conformance suite and the end-to-end tests through
#                           CMake/ctest
#   scripts/test.sh --all   also every other family of the release table (releases.txt), each
#                           against its newest release: in full or lean as its `suite` says
#                           (the layout check and ctest -L lean); then whisper.rn's and plain
#                           ggml's copies of the library in one process (ctests/two_copies), every fuzz target
#                           briefly (scripts/checks/fuzz-smoke.sh), the phones' targets under
#                           qemu (scripts/phones/test-phones.sh: the same ctest suite), the
#                           npm package (packages/react-native/test/install.sh) and the
#                           footprint check (benches/footprint.sh); what CI runs
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
all=false
case "${1:-}" in
    --all) all=true ;;
    "") ;;
    *) echo "usage: scripts/test.sh [--all]" >&2; exit 2 ;;
esac

if $all; then "$root/scripts/setup.sh" --all; else "$root/scripts/setup.sh" --tests; fi

table=scripts/release/release-table.sh
releases=()
newest=(newest)
if $all; then newest+=(--all); fi
for release in $($table "${newest[@]}"); do
    if $all || [ -z "$($table fact "$release" feature)" ]; then
        releases+=("$release")
    fi
done

# prints how long each step took (on stderr, which a step's quieted output leaves alone), and
# all of them at the end
timings=()
timed() {
    local label=$1 start=$SECONDS
    shift
    "$@"
    timings+=("$(printf '%5d s  %s' $((SECONDS - start)) "$label")")
    echo "== $label: $((SECONDS - start)) s" >&2
}
trap 'printf "%s\n" "== timings ($SECONDS s in all)" "${timings[@]}" >&2' EXIT

# the library, and the crates beside it that are not in its workspace
timed "rustfmt" bash -c 'for manifest in Cargo.toml macros/Cargo.toml layout-check/Cargo.toml fuzz/Cargo.toml; do
    cargo fmt --check --manifest-path "$manifest" || exit 1; done'
timed "docs' counts" python3 scripts/release/release-docs.py --check
for release in "${releases[@]}"; do
    "$root/scripts/fetch/fetch-reference.sh" "$release"
    feature=$($table fact "$release" feature)
    features=(${feature:+--features "$feature"})
    # the C library (no std) and the tests (with std: the crate as a Rust library)
    timed "$release: clippy" bash -c 'cargo clippy --quiet --lib "$@" -- -D warnings &&
        cargo clippy --quiet --all-targets "$@" -- -D warnings' clippy "${features[@]}"
    # the mirrors against bindgen's reading of the release's headers (compile-time assertions)
    folder=whisper.rn-$release
    if [ -z "$feature" ]; then folder=whisper.rn; fi
    case "$release" in *@*) folder=${release/@/-} ;; esac
    timed "$release: layout check" env WSP_RELEASE_HEADERS="$root/third_party/$folder/cpp" \
        cargo check --quiet --manifest-path layout-check/Cargo.toml "${features[@]}"
    build="build/ctest-$release"
    suite=$($table fact "$release" suite)
    # the lean suite has no RPC test (the examples are built without it) and no memcheck; both
    # have Vulkan (on Mesa's lavapipe) where the release table gives the family a source
    full=ON
    if [ "$suite" = lean ]; then full=OFF; fi
    vulkan=OFF
    if [ -n "$($table fact "$release" vulkan)" ]; then vulkan=ON; fi
    package_release=$release
    case "$release" in *@*) ;; *) package_release=whisper.rn@$release ;; esac
    # A lean suite's end-to-end program is llama.cpp's generation (llama.rn's or upstream's) from a synthetic model of a few
    # megabytes, where compiling llama.cpp optimized takes twice as long as the whole suite at
    # -O0, or whisper.rn's transcription of real speech, which runs four times longer at -O0.
    package_flags=-O2
    if [ "$suite" = lean ] && [ "${package_release%@*}" != whisper.rn ]; then package_flags=-O0; fi
    cmake -S . -B "$build" -DGGMLRS_RELEASE="$package_release" -DGGMLRS_RPC="$full" \
        -DGGMLRS_MEMCHECK="$full" -DGGMLRS_VULKAN="$vulkan" \
        -DGGMLRS_PACKAGE_FLAGS="$package_flags" \
        -DGGMLRS_CARGO_TARGET_DIR="$root/target" >/dev/null
    if [ "$suite" = full ]; then
        # What only cargo tests: the unit tests and (one check for all families, run with the
        # default one) the header and the releases' headers. The conformance suite
        # (ctests/programs.txt) runs here through ctest, as it does for the phones' targets
        # under qemu (scripts/phones/cross.sh).
        tests=(--lib)
        if [ -z "$feature" ]; then
            tests+=(--test header --test releases)
        fi
        timed "$release: cargo test" cargo test "${tests[@]}" "${features[@]}"
        timed "$release: ctest build" cmake --build "$build" -j "$(nproc)" >/dev/null
        timed "$release: ctest" ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
    else
        timed "$release: ctest build (lean)" cmake --build "$build" -j "$(nproc)" --target wsp_lean_tests >/dev/null
        timed "$release: ctest -L lean" ctest --test-dir "$build" --output-on-failure -j "$(nproc)" -L lean
    fi
done
if $all; then
    # whisper.rn's newest (wsp_) and plain ggml's newest (no prefix) in one process, each with its
    # own copy of the library (ctests/two_copies), as an app holding whisper.rn and llama.rn 0.13
    wsp_build="" plain_build=""
    for release in "${releases[@]}"; do
        case "$($table prefix "$release")" in
            wsp_) wsp_build=build/ctest-$release ;;
            "") plain_build=build/ctest-$release ;;
        esac
    done
    timed "two copies" ctests/two_copies/run.sh "$wsp_build" "$plain_build"
    # every fuzz target built and run briefly from its seeds (so that they keep building)
    timed "fuzz smoke" "$root/scripts/checks/fuzz-smoke.sh" 10
    # arm64 and 32-bit ARM under qemu, the Android and iOS archives, whisper.rn's Android build
    timed "phones" "$root/scripts/phones/test-phones.sh"
    # the npm package, packed with its prebuilt libraries, in scratch apps of the current React
    # Native and Expo templates: Gradle and kotlinc run its hooks, the apps build without Rust,
    # uninstall, package managers
    timed "npm package" "$root/packages/react-native/test/install.sh"
    # what the library adds to an app's native code against the C++ it replaces (BENCHMARKS.md
    # has every package and ABI; here whisper.rn's newest on x86_64, for CI's time): it fails
    # above the target, 200 KB (llama.rn's share is above it still; BENCHMARKS.md)
    timed "footprint" "$root/benches/footprint.sh" --abi x86_64 \
        "$($table newest | tail -1)"
fi
