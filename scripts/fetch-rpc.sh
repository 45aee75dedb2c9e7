#!/usr/bin/env bash
# Fetch ggml's RPC backend (ggml-rpc.cpp and ggml-rpc.h, the same as upstream ggml a2253f34,
# which whisper.rn 0.4.3 vendors) from the sdist of PyPI's llama-cpp-python, check the sdist's
# sha256, rename its ggml symbols the way whisper.rn's bootstrap does, and put the two files
# into third_party/ggml-rpc (ignored by git). Idempotent: does nothing when already there.
set -euo pipefail

VERSION=0.3.14
SHA256=c7ffd71685923a911206a40e972c1ec739aa21032100fdc8618316571b173507

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party/ggml-rpc"
stamp="$dest/.sha256"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$SHA256" ] && [ -f "$dest/ggml-rpc.cpp" ] && [ -f "$dest/ggml-rpc.h" ]; then
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The sdist, pinned by hash so that pip itself refuses anything else. pip prepares its metadata
# in an isolated environment; its build backend may come as a wheel (building the backend and
# its own build dependencies from sdists would take minutes).
echo "llama-cpp-python==$VERSION --hash=sha256:$SHA256" > "$work/requirements.txt"
python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python --require-hashes \
    -r "$work/requirements.txt" -d "$work" >&2
sdist="$work/llama_cpp_python-$VERSION.tar.gz"

actual=$(sha256sum "$sdist" | cut -d' ' -f1)
if [ "$actual" != "$SHA256" ]; then
    echo "fetch-rpc: sha256 mismatch for llama-cpp-python $VERSION" >&2
    echo "  expected $SHA256" >&2
    echo "  actual   $actual" >&2
    exit 1
fi

ggml="llama_cpp_python-$VERSION/vendor/llama.cpp/ggml"
tar -xzf "$sdist" -C "$work" "$ggml/src/ggml-rpc/ggml-rpc.cpp" "$ggml/include/ggml-rpc.h"

rm -rf "$dest"
mkdir -p "$dest"
# whisper.rn's renames, in its order (so "dequantize_" ends up as "wsp_dewsp_quantize_", as in
# whisper.rn's own sources).
for file in "$ggml/src/ggml-rpc/ggml-rpc.cpp" "$ggml/include/ggml-rpc.h"; do
    sed -e 's/GGML_/WSP_GGML_/g' -e 's/ggml_/wsp_ggml_/g' -e 's/GGUF_/WSP_GGUF_/g' -e 's/gguf_/wsp_gguf_/g' \
        -e 's/dequantize_/wsp_dequantize_/g' -e 's/quantize_/wsp_quantize_/g' \
        "$work/$file" > "$dest/$(basename "$file")"
done
echo "$SHA256" > "$stamp"
echo "fetch-rpc: ggml-rpc from llama-cpp-python $VERSION unpacked into $dest" >&2
