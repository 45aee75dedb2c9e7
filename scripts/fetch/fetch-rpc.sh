#!/usr/bin/env bash
# Fetch ggml's RPC backend (the sources of ggml-rpc and ggml-rpc.h) from the sdist of PyPI's
# llama-cpp-python, check the sdist's sha256, rename its ggml symbols the way the release's
# package's bootstrap does, and put the files into third_party/ggml-rpc-<version> (whisper.rn's)
# or third_party/ggml-rpc-<version>-<package> (ignored by git). Idempotent: does nothing when
# already there.
#
#   scripts/fetch/fetch-rpc.sh [VERSION [RELEASE]]    the llama-cpp-python release (default: the one the
#                                               default family's row of releases.txt names), the
#                                               release it builds against (default: the first
#                                               whisper.rn family's newest release whose row names
#                                               VERSION; PACKAGE@VERSION for another package)
#
# Which serves which family is the release table's `rpc` key: 0.3.14 vendors ggml a2253f34's
# ggml-rpc (whisper.rn 0.4.3's ggml), whose interface tables fit up to 0.5.5; 0.3.35's
# ggml-backend-impl.h is whisper.rn 0.7.4's (renamed), and its ggml-rpc (split into ggml-rpc.cpp
# and transport.cpp) compiles against 0.7's headers.
set -euo pipefail

# version  files under vendor/llama.cpp/ggml/
RELEASES='
0.3.14 src/ggml-rpc/ggml-rpc.cpp include/ggml-rpc.h
0.3.35 src/ggml-rpc/ggml-rpc.cpp src/ggml-rpc/transport.cpp src/ggml-rpc/transport.h include/ggml-rpc.h
0.3.36 src/ggml-rpc/ggml-rpc.cpp src/ggml-rpc/transport.cpp src/ggml-rpc/transport.h include/ggml-rpc.h
'

root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/fetch/llama-cpp-python-sdist.sh"
VERSION=${1:-$("$root/scripts/release/release-table.sh" fact "$("$root/scripts/release/release-table.sh" newest | sed -n 1p)" rpc)}
read -r _ FILES < <(awk -v v="$VERSION" '$1 == v' <<<"$RELEASES") || true
SHA256=$(sdist_sha256 "$VERSION")
if [ -z "${FILES:-}" ] || [ -z "$SHA256" ]; then
    echo "fetch-rpc: unknown llama-cpp-python release '$VERSION' (known: $(awk 'NF { print $1 }' <<<"$RELEASES" | paste -sd " "))" >&2
    exit 2
fi
# by default the first whisper.rn family's newest release that builds this ggml-rpc
RELEASE=${2:-}
if [ -z "$RELEASE" ]; then
    for newest in $("$root/scripts/release/release-table.sh" newest); do
        if [ "$("$root/scripts/release/release-table.sh" fact "$newest" rpc)" = "$VERSION" ]; then RELEASE=$newest; break; fi
    done
fi
PACKAGE=whisper.rn
case "$RELEASE" in *@*) PACKAGE=${RELEASE%@*} ;; esac
dest="$root/third_party/ggml-rpc-$VERSION"
if [ "$PACKAGE" != whisper.rn ]; then dest="$dest-$PACKAGE"; fi
stamp="$dest/.sha256"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$SHA256" ]; then
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sdist=$(sdist_fetch "$VERSION" "$work") || { echo "fetch-rpc: the sdist could not be had" >&2; exit 1; }

ggml="llama_cpp_python-$VERSION/vendor/llama.cpp/ggml"
paths=()
for file in $FILES; do paths+=("$ggml/$file"); done
tar -xzf "$sdist" -C "$work" "${paths[@]}"

rm -rf "$dest"
mkdir -p "$dest"
# A device's caps have mmap_support where the family has the capability; ggml-rpc 0.3.35 sets it.
capabilities=" $("$root/scripts/release/release-table.sh" fact "$RELEASE" capabilities) "
without_mmap_support=(cat)
if [ "${capabilities#* mmap_support }" = "$capabilities" ]; then
    without_mmap_support=(sed '/\.mmap_support *= \*\//d')
fi
for path in "${paths[@]}"; do
    package_renames "$PACKAGE" < "$work/$path" | "${without_mmap_support[@]}" > "$dest/$(basename "$path")"
done
echo "$SHA256" > "$stamp"
echo "fetch-rpc: ggml-rpc from llama-cpp-python $VERSION unpacked into $dest" >&2
