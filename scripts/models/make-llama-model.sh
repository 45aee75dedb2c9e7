#!/usr/bin/env bash
# Makes the synthetic llama model of scripts/models/make-llama-model.py (llama.rn's tests and
# scripts/run.sh --release llama.rn@...) and prints its path. PyPI's gguf package, pinned by
# version and hash, writes it from a Python environment kept in the cache folder; the model is
# cached there too, ${WSP_MODEL_DIR:-$HOME/.cache/wsp-ggml-backend}/llama-synthetic.gguf, and
# reused while its sha256 is the one below (the same seed and writer give the same bytes).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${WSP_MODEL_DIR:-$HOME/.cache/wsp-ggml-backend}
model=$dir/llama-synthetic.gguf
expected=5b033e3678825293515a539fe6132e7acb8f745a809de249fbda8fdc79ebd419

if [ -f "$model" ] && [ "$(sha256sum "$model" | cut -d' ' -f1)" = "$expected" ]; then
    echo "$model"
    exit 0
fi

mkdir -p "$dir"
venv=$dir/gguf-venv
if ! "$venv/bin/python" -c 'import gguf, numpy' 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    echo "gguf==0.19.0 --hash=sha256:70bcd10edfe697fb2dad6e40af2234b9d8ece9a41a99761405121ebda1c3c1cd" > "$tmp/gguf.txt"
    "$venv/bin/pip" download -q --disable-pip-version-check --no-deps --require-hashes -r "$tmp/gguf.txt" -d "$tmp" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check "$tmp"/gguf-0.19.0-*.whl numpy==2.4.6 >&2
fi

"$venv/bin/python" "$here/make-llama-model.py" "$model.tmp"
actual=$(sha256sum "$model.tmp" | cut -d' ' -f1)
if [ "$actual" != "$expected" ]; then
    echo "make-llama-model: the model's sha256 is $actual, expected $expected" >&2
    rm -f "$model.tmp"
    exit 1
fi
mv "$model.tmp" "$model"
echo "$model"
