#!/usr/bin/env bash
# Fetch ggml's RPC backend (the sources of ggml-rpc and ggml-rpc.h) from the sdist of PyPI's
# llama-cpp-python, check the sdist's sha256, rename its ggml symbols the way whisper.rn's
# bootstrap does, and put the files into third_party/ggml-rpc-<version> (ignored by git).
# Idempotent: does nothing when already there.
#
#   scripts/fetch-rpc.sh [VERSION]    the llama-cpp-python release (default: the one the default
#                                     family's row of releases.txt names)
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
'

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/llama-cpp-python-sdist.sh"
VERSION=${1:-$("$root/scripts/release-table.sh" fact "$("$root/scripts/release-table.sh" newest | sed -n 1p)" rpc)}
read -r _ FILES < <(awk -v v="$VERSION" '$1 == v' <<<"$RELEASES") || true
SHA256=$(sdist_sha256 "$VERSION")
if [ -z "${FILES:-}" ] || [ -z "$SHA256" ]; then
    echo "fetch-rpc: unknown llama-cpp-python release '$VERSION' (known: $(awk 'NF { print $1 }' <<<"$RELEASES" | paste -sd " "))" >&2
    exit 2
fi
dest="$root/third_party/ggml-rpc-$VERSION"
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
for path in "${paths[@]}"; do
    whisper_rn_renames < "$work/$path" > "$dest/$(basename "$path")"
done
echo "$SHA256" > "$stamp"
echo "fetch-rpc: ggml-rpc from llama-cpp-python $VERSION unpacked into $dest" >&2
