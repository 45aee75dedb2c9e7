#!/usr/bin/env bash
# What the library adds to an app's native code, against the C++ it replaces: the package's own
# example program (whisper.rn: examples/transcribe; llama.rn: examples/generate) built from the
# release's C++ with the package's Android flags (-O3, hidden visibility, function and data
# sections, --gc-sections), once linked with the package's own backend layer and once with this
# library's static archive, stripped, for x86_64 and arm64 (over Debian's aarch64 cross
# compiler's headers and libraries). The packages' Android builds compile with the NDK's clang and
# link with its lld, which keeps only the strings a program uses of a section of merged strings
# (GNU ld keeps the whole section); clang-14 and lld-14 stand in for them. --toolchain gnu
# measures with GCC and GNU ld instead (BENCHMARKS.md's earlier columns).
#
#   benches/footprint.sh [--budget BYTES] [--abi x86_64|arm64] [--toolchain ndk|gnu] [RELEASE...]
#
# RELEASE is whisper.rn's version or PACKAGE@VERSION (default: the newest release of each
# package's newest family). For each release and architecture it prints a row of
#   text of the program with the reference layer, with the library, the reference layer's own
#   text (its objects), and the library's share: with library - with reference + layer's own
# and fails when a share is above BYTES (the budget: 200 KB, counted as 200000 by default). --abi measures
# one architecture only.
# A benchmark, not a test: BENCHMARKS.md keeps its results.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
budget=200000
abis=(x86_64 arm64)
toolchain=ndk
while [ $# -gt 0 ]; do
    case "$1" in
        --budget) budget=$2; shift 2 ;;
        --abi) abis=("$2"); shift 2 ;;
        --toolchain) toolchain=$2; shift 2 ;;
        *) break ;;
    esac
done
releases=("$@")
if [ ${#releases[@]} -eq 0 ]; then
    releases=("$(scripts/release/release-table.sh newest | tail -1)" "$(scripts/release/release-table.sh newest --apps | tail -1)")
fi

# the packages' Android build flags (android/src/main/CMakeLists.txt of both packages)
flags="-O3 -DNDEBUG -fvisibility=hidden -ffunction-sections -fdata-sections"

text() {
    llvm-size --format=berkeley "$@" | awk 'NR > 1 { sum += $1 } END { print sum }'
}

over=0
printf '| release | ABI | program with the reference layer | with the library | the reference layer'"'"'s own text | the library'"'"'s share |\n'
printf '| --- | --- | ---: | ---: | ---: | ---: |\n'
for release in "${releases[@]}"; do
    case "$release" in
        *@*) package=${release%@*} ;;
        *) package=whisper.rn release=whisper.rn@$release ;;
    esac
    program=transcribe
    if [ "$package" = llama.rn ]; then program=generate; fi
    for abi in "${abis[@]}"; do
        dir="build/footprint-$toolchain-${release/@/-}-$abi"
        mkdir -p build
        compilers=()
        link="-Wl,--gc-sections"
        if [ "$toolchain" = ndk ]; then
            link="-fuse-ld=lld-14 $link"
            if [ "$abi" = x86_64 ]; then
                compilers=(-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14)
            else
                compilers=(-DWSP_CROSS_CLANG=clang-14)
            fi
        fi
        if [ "$abi" = arm64 ]; then
            compilers+=(-DCMAKE_TOOLCHAIN_FILE="$root/cmake/linux-cross.cmake" -DWSP_CROSS_GNU=aarch64-linux-gnu)
        fi
        cmake -S . -B "$dir" "${compilers[@]}" -DGGMLRS_RELEASE="$release" -DGGMLRS_TESTS=OFF \
            -DGGMLRS_RPC=OFF -DGGMLRS_PACKAGE_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
            -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$link" \
            -DGGMLRS_CARGO_TARGET_DIR="$root/target/footprint" >"$dir.log" 2>&1 ||
            { tail -20 "$dir.log" >&2; exit 1; }
        cmake --build "$dir" -j "$(nproc)" --target "$program" "$program-ref" wsp_package_reference >>"$dir.log" 2>&1 ||
            { tail -20 "$dir.log" >&2; exit 1; }
        for build in "$program" "$program-ref"; do
            llvm-strip -o "$dir/$build.stripped" "$dir/examples/$build"
        done
        with_ref=$(text "$dir/$program-ref.stripped")
        with_lib=$(text "$dir/$program.stripped")
        layer=$(text "$(find "$dir" -name libwsp_package_reference.a | head -1)")
        share=$((with_lib - with_ref + layer))
        printf '| %s | %s | %d | %d | %d | **%d** |\n' "$release" "$abi" "$with_ref" "$with_lib" "$layer" "$share"
        if [ "$share" -gt "$budget" ]; then over=1; fi
    done
done
if [ "$over" -ne 0 ]; then
    echo "footprint: the library's share is above the budget of $budget bytes" >&2
    exit 1
fi
