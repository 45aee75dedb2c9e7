#!/usr/bin/env bash
# Tests the library on a phone's CPU architecture: builds it and whisper.rn's C++ (its per-arch
# CPU kernels and flags) for TARGET with Debian's cross compilers, then runs under qemu-user
# (i686: natively, through its own loader):
#   0. layout parity of the Rust mirrors with whisper.rn's headers as bindgen reads them for
#      TARGET (layout-check/, compile-time assertions), for 0.4.3 and for the 0.5.5 and 0.7.4
#      builds;
#   1. the Rust unit tests (cargo test --lib --target TARGET);
#   2. the C conformance suite, built for the target by this project's CMake and run by ctest
#      through qemu (CMAKE_CROSSCOMPILING_EMULATOR): ABI parity of whisper.rn's headers and the
#      library's header, the exported symbols, the differential programs against the reference
#      (static and shared), bad input, behaviour, dynamic loading, the hot path's allocations;
#      all but the tests that run a real model (ctest -LE model; valgrind and RPC stay on the
#      build machine);
#   3. one transcript end to end: examples/transcribe linked with the library must print exactly
#      what the reference build for TARGET prints.
# Emulation is slow (about 150 times slower than native for whisper's encoder) and whisper encodes
# a 30 s window whatever the audio, so the transcript uses a reduced encoder context (default 176
# frames: 3.52 s, all of sample1, the shortest sample), one greedy pass and one thread, the same
# for every build, and compares the statically linked build (--shared: the shared one too).
# --full uses the model's full window and checks both builds (under qemu: 15-20 minutes).
#
#   scripts/phones/cross.sh [--full] [--shared] [--audio-ctx N] [--sample NAME] TARGET
#   scripts/phones/cross.sh --install TARGET...     only install what TARGET needs
# TARGET: aarch64-unknown-linux-gnu, armv7-unknown-linux-gnueabihf or i686-unknown-linux-gnu.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

usage() {
    echo "usage: $0 [--full] [--shared] [--audio-ctx N] [--sample NAME] TARGET | --install TARGET..." >&2
    echo "  TARGET: aarch64-unknown-linux-gnu, armv7-unknown-linux-gnueabihf, i686-unknown-linux-gnu" >&2
    exit 2
}

# The GNU triple of Debian's cross compilers and the qemu-user binary for a Rust target.
describe() {
    case "$1" in
        aarch64-unknown-linux-gnu) gnu=aarch64-linux-gnu qemu=qemu-aarch64 ;;
        armv7-unknown-linux-gnueabihf) gnu=arm-linux-gnueabihf qemu=qemu-arm ;;
        # i686 programs run on the x86_64 kernel; only the loader and libc are the cross ones
        i686-unknown-linux-gnu) gnu=i686-linux-gnu qemu="" ;;
        *) echo "cross.sh: unsupported target '$1'" >&2; usage ;;
    esac
}

# Installs the cross compilers, qemu-user and the Rust target when missing (not gcc-multilib,
# which conflicts with the ARM cross compilers).
install_for() {
    describe "$1"
    local missing=()
    command -v "$gnu-gcc" >/dev/null || missing+=("gcc-$gnu")
    command -v "$gnu-g++" >/dev/null || missing+=("g++-$gnu")
    if [ -n "$qemu" ] && ! command -v "$qemu" >/dev/null; then missing+=(qemu-user); fi
    if [ ${#missing[@]} -gt 0 ]; then
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo=sudo
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    rustup target list --installed | grep -qx "$1" || rustup target add "$1"
}

full=0
shared=0
audio_ctx=176
sample=sample1
target=""
while [ $# -gt 0 ]; do
    case "$1" in
        --install)
            shift
            [ $# -gt 0 ] || usage
            for t in "$@"; do install_for "$t"; done
            exit 0 ;;
        --full) full=1 ;;
        --shared) shared=1 ;;
        --audio-ctx) [ $# -gt 1 ] || usage; audio_ctx=$2; shift ;;
        --sample) [ $# -gt 1 ] || usage; sample=$2; shift ;;
        -*) usage ;;
        *) [ -z "$target" ] || usage; target=$1 ;;
    esac
    shift
done
[ -n "$target" ] || usage
install_for "$target"

started=$SECONDS
step_started=$SECONDS
step() {
    echo "cross[$target]: $1 ($((SECONDS - step_started)) s)"
    step_started=$SECONDS
}

# How cargo and CMake reach the target: its linker and runner (cargo runs the unit tests through
# it; ctest runs the C programs through it).
triple_env=$(echo "$target" | tr 'a-z-' 'A-Z_')
if [ -n "$qemu" ]; then
    runner="$qemu -L /usr/$gnu"
else
    runner="/usr/$gnu/lib/ld-linux.so.2 --library-path /usr/$gnu/lib"
fi
export "CARGO_TARGET_${triple_env}_LINKER=$gnu-gcc" "CARGO_TARGET_${triple_env}_RUNNER=$runner"
export WSP_GGML_NO_BACKTRACE=1

mkdir -p build
scripts/fetch/fetch-reference.sh
model=$(scripts/models/make-model.sh)
samples=$(scripts/models/make-samples.sh)

# 0. layout parity from the headers, for this target: every family of the release table against
# its newest release's headers
cargo check --quiet --manifest-path layout-check/Cargo.toml --target "$target"
for release in $(scripts/release/release-table.sh newest); do
    feature=$(scripts/release/release-table.sh fact "$release" feature)
    [ -n "$feature" ] || continue
    scripts/fetch/fetch-reference.sh "$release"
    WSP_RELEASE_HEADERS="$root/third_party/whisper.rn-$release/cpp" \
        cargo check --quiet --manifest-path layout-check/Cargo.toml --target "$target" --features "$feature"
done
step "layout of the Rust mirrors identical to every family's headers for $target"

# 1. unit tests
cargo test --lib --target "$target" 2>&1 | tee "build/cross-$target.unit.log" | grep -E "^test result|FAILED|panicked" || true
grep -q "^test result: ok" "build/cross-$target.unit.log" || { echo "cross[$target]: unit tests failed" >&2; exit 1; }
step "unit tests"

# 2. the C conformance suite and whisper.rn's C++ for the target (this project's CMake with the
# cross toolchain; whisper.rn's code warns on 32-bit targets: keep the compiler's output, show it
# on failure), run by ctest under the emulator
build="build/cross-$target"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE="$root/cmake/linux-cross.cmake" \
    -DWSP_CROSS_GNU="$gnu" "-DCMAKE_CROSSCOMPILING_EMULATOR=${runner// /;}" -DGGMLRS_TESTS=ON \
    -DGGMLRS_RPC=OFF \
    -DGGMLRS_CARGO_TARGET_DIR="$root/target" >/dev/null
cmake --build "$build" -j "$(nproc)" > "$build.build.log" 2>&1 || { tail -n 40 "$build.build.log" >&2; exit 1; }
step "the C suite, whisper.rn and examples/transcribe built for $target"
ctest --test-dir "$build" -LE model -j "$(nproc)" --output-on-failure > "$build.ctest.log" 2>&1 \
    || { grep -E "Failed|\*\*\*" "$build.ctest.log" >&2; tail -n 60 "$build.ctest.log" >&2; exit 1; }
grep -E "tests passed" "$build.ctest.log" | sed "s/^/cross[$target]: /"
step "conformance suite (ctest -LE model)"

# 3. one transcript by the reference build and the library's builds
programs=(transcribe-ref transcribe)
if [ "$full" -eq 1 ] || [ "$shared" -eq 1 ]; then programs+=(transcribe-shared); fi
echo "cross[$target]: transcribe is $(readelf -h "$build/examples/transcribe" | sed -n 's/^ *Machine: *//p')"

args=(-q -t 1)
if [ "$full" -eq 0 ]; then args+=(--audio-ctx "$audio_ctx" --no-fallback); fi
args+=("$model" "$samples/$sample.wav")
echo "cross[$target]: $sample.wav says: $(cat "$samples/$sample.txt")"
echo "cross[$target]: encoder context: $([ "$full" -eq 1 ] && echo "full (30 s)" || echo "$audio_ctx frames, no temperature fallback"), 1 thread"
# The reference and the library's builds run side by side (one emulated thread each).
pids=()
for program in "${programs[@]}"; do
    # shellcheck disable=SC2086 # the runner is a command with its arguments
    ( t0=$SECONDS; $runner "$build/examples/$program" "${args[@]}" > "$build/$program.txt" 2> "$build/$program.err"
      echo "$((SECONDS - t0))" > "$build/$program.seconds" ) &
    pids+=($!)
done
for i in "${!programs[@]}"; do
    program=${programs[$i]}
    wait "${pids[$i]}" || { echo "cross[$target]: $program failed:" >&2; cat "$build/$program.err" >&2; exit 1; }
    echo "cross[$target]: $program: \"$(cat "$build/$program.txt")\" ($(cat "$build/$program.seconds") s; $(tail -n 1 "$build/$program.err"))"
done
[ -s "$build/transcribe-ref.txt" ] || { echo "cross[$target]: the reference build printed no transcript" >&2; exit 1; }
for program in "${programs[@]:1}"; do
    if ! cmp -s "$build/transcribe-ref.txt" "$build/$program.txt"; then
        echo "cross[$target]: $program differs from the reference build" >&2
        exit 1
    fi
done
step "transcripts identical to the reference build"
echo "cross[$target]: all passed in $((SECONDS - started)) s"
