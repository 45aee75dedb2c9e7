#!/usr/bin/env bash
# Whether the library built for RELEASE's family, and the release's own backend layer, both
# define exactly the functions of the family's list (releases.txt `symbols`, named with the
# package's prefix), statically and shared linked: ctests/abi/symbols.cmake, which the C suite
# runs too, without the C suite. The release's layer is compiled from its fetched cpp/
# (scripts/fetch-reference.sh) with the host's C++ compiler.
#
#   scripts/exported-functions.sh RELEASE   (0.7.4, llama.rn@0.12.9)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
table="$root/scripts/release-table.sh"
release=$1
feature=$("$table" fact "$release" feature)
prefix=$("$table" prefix "$release")
list="$root/ctests/$("$table" fact "$release" symbols)"
check() {
    cmake -DLIST="$list" -DNM=nm -DPREFIX="$prefix" -DSTATIC="$1" -DSHARED="$2" -P "$root/ctests/abi/symbols.cmake"
}

echo "== this library"
target="$root/target/exported-functions"
cargo build --quiet --release --manifest-path "$root/Cargo.toml" --target-dir "$target" ${feature:+--features "$feature"}
check "$target/release/libwsp_ggml_backend.a" "$target/release/libwsp_ggml_backend.so"

echo "== $release's own layer"
"$root/scripts/fetch-reference.sh" "$release"
case "$release" in
    *@*) cpp="$root/third_party/${release/@/-}/cpp" ;;
    *) cpp="$root/third_party/whisper.rn${feature:+-$release}/cpp" ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
macro=$(echo "$prefix" | tr a-z A-Z)
for source in "$cpp"/ggml-backend*.cpp; do
    c++ -std=c++17 -fPIC -c -I"$cpp" -D"${macro}GGML_USE_CPU" "$source" -o "$work/$(basename "$source" .cpp).o"
done
ar rcs "$work/libreference.a" "$work"/*.o
c++ -shared -o "$work/libreference.so" "$work"/*.o
check "$work/libreference.a" "$work/libreference.so"
