#!/bin/sh
# Builds ctests/diff_v7/meta.c twice, against whisper.rn 0.7.4's reference backend layer
# (ggml-backend.cpp, -reg, -meta, -dl) and against this library's static library built with
# --features whisper-rn-0-7, and diffs their output. Lines starting with "known-difference" are
# shown but not compared (this library names the meta device's parts; the reference's names
# read "Meta()").
#
# usage: ctests/diff_v7/run-meta.sh [whisper.rn 0.7.4 cpp folder]   (run from the repository root)
set -eu
ROOT=$(pwd)
CPP=${1:-$ROOT/third_party/whisper.rn-0.7.4/cpp}
[ -f "$CPP/ggml-backend-meta.cpp" ] || { echo "no whisper.rn 0.7.4 sources in $CPP (scripts/fetch-reference.sh 0.7.4)" >&2; exit 2; }
# META_BUILD_DIR: keep the objects there between runs (else a temporary folder).
if [ -n "${META_BUILD_DIR:-}" ]; then
    OUT=$META_BUILD_DIR
    mkdir -p "$OUT"
else
    OUT=$(mktemp -d)
    trap 'rm -rf "$OUT"' EXIT
fi
CC=${CC:-cc}
CXX=${CXX:-c++}
FLAGS="-O2 -g -fPIC -D_GNU_SOURCE -DWSP_GGML_USE_CPU -DWSP_GGML_USE_CPU_REPACK -I$CPP -I$CPP/ggml-cpu"
case $(uname -m) in
    x86_64) ARCH=x86; FLAGS="$FLAGS -march=x86-64-v3" ;;
    aarch64) ARCH=arm; FLAGS="$FLAGS -march=armv8.2-a+fp16+dotprod" ;;
    *) echo "unsupported machine $(uname -m)" >&2; exit 2 ;;
esac
HEAVY="flock /tmp/wsp-heavy.lock nice"

# whisper.rn's ggml core and CPU backend, shared by both programs
core_c="ggml.c ggml-alloc.c ggml-quants.c ggml-cpu/ggml-cpu.c ggml-cpu/quants.c ggml-cpu/arch/$ARCH/quants.c"
core_cxx="ggml.cpp ggml-threading.cpp ggml-opt.cpp gguf.cpp ggml-cpu/ggml-cpu.cpp ggml-cpu/traits.cpp ggml-cpu/repack.cpp
    ggml-cpu/unary-ops.cpp ggml-cpu/binary-ops.cpp ggml-cpu/vec.cpp ggml-cpu/ops.cpp ggml-cpu/amx/amx.cpp
    ggml-cpu/amx/mmq.cpp ggml-cpu/arch/$ARCH/repack.cpp"
compile() { # tag compiler std sources...
    tag=$1; compiler=$2; std=$3; shift 3
    for src in "$@"; do
        obj=$OUT/$tag-$(echo "$src" | tr '/' '_').o
        [ -f "$obj" ] || $HEAVY $compiler $std $FLAGS -c "$CPP/$src" -o "$obj"
        echo "$obj"
    done
}
CORE=$( { compile core "$CC" -std=c11 $core_c; compile core "$CXX" -std=c++17 $core_cxx; } )
REF=$(compile ref "$CXX" -std=c++17 ggml-backend.cpp ggml-backend-reg.cpp ggml-backend-meta.cpp ggml-backend-dl.cpp)

$HEAVY cargo build --quiet --features whisper-rn-0-7
PROG="$ROOT/ctests/diff_v7/meta.c"
LIBS="-lpthread -ldl -lm -lstdc++"
# the program with the TEST fixture (a non-host device) of ctests/common
PROG="$PROG $ROOT/ctests/common/test_backend.c"
CFLAGS="-std=c11 -O1 -g -Wall -Wextra -Werror -I$CPP -I$ROOT/ctests/common"
$HEAVY $CC $CFLAGS $PROG -o "$OUT/meta.ref" -Wl,--start-group $REF $CORE -Wl,--end-group $LIBS
$HEAVY $CC $CFLAGS $PROG -o "$OUT/meta.rs" -Wl,--start-group "$ROOT/target/debug/libwsp_ggml_backend.a" $CORE -Wl,--end-group $LIBS

"$OUT/meta.ref" > "$OUT/ref.txt"
# META_VALGRIND=1: this library's run under valgrind (errors fail the script; 0.7.4's reference
# reads uninitialised memory when a device's share is empty, and is not checked)
if [ -n "${META_VALGRIND:-}" ]; then
    valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite "$OUT/meta.rs" > "$OUT/rs.txt"
else
    "$OUT/meta.rs" > "$OUT/rs.txt"
fi
grep '^known-difference' "$OUT/ref.txt" | sed 's/^/reference: /'
grep '^known-difference' "$OUT/rs.txt" | sed 's/^/this library: /'
grep -v '^known-difference' "$OUT/ref.txt" > "$OUT/ref.cmp"
grep -v '^known-difference' "$OUT/rs.txt" > "$OUT/rs.cmp"
if diff -u "$OUT/ref.cmp" "$OUT/rs.cmp"; then
    echo "meta: identical ($(wc -l < "$OUT/rs.cmp") lines)"
else
    echo "meta: outputs differ" >&2
    exit 1
fi
