#!/usr/bin/env bash
# ggml's Vulkan backend for a family of the release table, as a static archive that a program
# links beside the release's C++ and this library (built with the cargo feature `vulkan`, or the
# reference layer with <PREFIX>GGML_USE_VULKAN).
#
#   scripts/fetch/fetch-vulkan.sh [RELEASE]        prints the archive's path
#   scripts/fetch/fetch-vulkan.sh --environment [RELEASE]
#                                            prints the environment the tests and benchmarks
#                                            run Vulkan with (NAME=value, one a line): Mesa's
#                                            lavapipe made visible, and Mesa's shader cache
#                                            under ~/.cache (its first run compiles every
#                                            pipeline with LLVM, tens of seconds)
# RELEASE is whisper.rn's version or PACKAGE@VERSION (default: whisper.rn 0.7.4).
#
# - The sources come from the llama-cpp-python sdist the table's `vulkan` key names (pinned by
#   sha256, scripts/fetch/llama-cpp-python-sdist.sh), renamed as the package renames ggml (plain
#   ggml keeps its names), into third_party/ggml-vulkan-<version>-<package>/. Debian's Vulkan headers lack VK_EXT_layer_settings:
#   the one use of it (the validation layer's settings) is compiled only where the headers
#   declare it.
# - The shaders are compiled to SPIR-V with Debian's glslc by ggml's own generator, once, into
#   ~/.cache/wsp-ggml-backend/vulkan/<sdist hash>-<package>-glslc-<glslc version>-unoptimized/ (reused by
#   every later run and every clone). glslc runs without -O (spirv-opt), which the generator asks
#   for: half the time (89 s instead of 173 on 2 cores), and lavapipe, the one device here,
#   optimizes every shader itself (NIR, then LLVM) when it makes a pipeline. The generator writes each shader as a C
#   array: those arrays are dropped as they are written, and the SPIR-V files are embedded with
#   the assembler's .incbin instead (146 MB of C++ otherwise, and gigabytes to compile it).
# - The archive: third_party/ggml-vulkan-<version>-<package>/build-<version>/libwsp_ggml_vulkan.a.
#
# Needs libvulkan-dev, spirv-headers and glslc (installed when missing, with mesa-vulkan-drivers: lavapipe, a
# Vulkan device on the CPU, to run it here; ggml-vulkan lists a CPU-type device only with
# <PREFIX>GGML_VK_VISIBLE_DEVICES=0).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
table="$root/scripts/release/release-table.sh"
environment=false
if [ "${1:-}" = --environment ]; then
    environment=true
    shift
fi
release=${1:-0.7.4}
case "$release" in
    *@*) package=${release%@*} version_of_release=${release#*@} ;;
    *) package=whisper.rn version_of_release=$release ;;
esac
macro=$("$table" prefix "$release" | tr a-z A-Z)
if $environment; then
    echo "${macro}GGML_VK_VISIBLE_DEVICES=0"
    echo "MESA_SHADER_CACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/wsp-ggml-backend/mesa-shader-cache"
    exit 0
fi

source "$root/scripts/fetch/llama-cpp-python-sdist.sh"
version=$("$table" fact "$release" vulkan)
if [ -z "$version" ]; then
    echo "fetch-vulkan: the release table gives $package $version_of_release no Vulkan source" >&2
    exit 2
fi
sha256=$(sdist_sha256 "$version")
[ -n "$sha256" ] || { echo "fetch-vulkan: no pinned hash for llama-cpp-python $version" >&2; exit 2; }

missing=()
command -v glslc >/dev/null || missing+=(glslc)
[ -f /usr/include/vulkan/vulkan.hpp ] || missing+=(libvulkan-dev)
[ -f /usr/include/spirv/unified1/spirv.hpp ] || missing+=(spirv-headers)
compgen -G "/usr/share/vulkan/icd.d/lvp_icd.*.json" >/dev/null || missing+=(mesa-vulkan-drivers)
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 1. the sources, renamed
src="$root/third_party/ggml-vulkan-$version-$package"
if [ "$(cat "$src/.sha256" 2>/dev/null)" != "$sha256" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    sdist=$(sdist_fetch "$version" "$work")
    ggml="llama_cpp_python-$version/vendor/llama.cpp/ggml"
    tar -xzf "$sdist" -C "$work" "$ggml/src/ggml-vulkan" "$ggml/include/ggml-vulkan.h"
    rm -rf "$src"
    mkdir -p "$src/vulkan-shaders"
    # ggml-vulkan.cpp, and from 0.3.36 the files it was split into
    for file in "$work/$ggml/src/ggml-vulkan/"*.cpp "$work/$ggml/src/ggml-vulkan/"*.h "$work/$ggml/include/ggml-vulkan.h" \
                "$work/$ggml/src/ggml-vulkan/vulkan-shaders/"*; do
        # file names too: the generator names its sources (quantize_q8_1.comp)
        name=$(basename "$file" | package_renames "$package")
        case "$file" in
            */vulkan-shaders/*) out="$src/vulkan-shaders/$name" ;;
            *) out="$src/$name" ;;
        esac
        [ -f "$file" ] && package_renames "$package" < "$file" > "$out"
    done
    python3 "$root/scripts/fetch/vulkan-sources.py" guard "$src/ggml-vulkan.cpp"
    echo "$sha256" > "$src/.sha256"
    rm -rf "$work"
    trap - EXIT
fi

# 2. the shaders, cached by the sdist and the compiler
# (sed reads all of glslc's lines: head would exit after the first, and glslc writing the rest
# would die of SIGPIPE, which pipefail turns into a silent failure of this script)
glslc_id=$(glslc --version | sed -n 1p | tr -c 'A-Za-z0-9.\n' '-' | sed 's/-*$//')
cache="${XDG_CACHE_HOME:-$HOME/.cache}/wsp-ggml-backend/vulkan/${sha256:0:16}-$package-glslc-$glslc_id-unoptimized"
if [ ! -f "$cache/done" ]; then
    started=$SECONDS
    rm -rf "$cache"
    mkdir -p "$cache/spv" "$cache/cpp"
    c++ -std=c++17 -O2 -pthread -o "$cache/vulkan-shaders-gen" "$src/vulkan-shaders/vulkan-shaders-gen.cpp"
    # glslc without the generator's -O
    printf '%s\n' '#!/bin/sh' 'for arg; do shift; [ "$arg" = -O ] || set -- "$@" "$arg"; done' 'exec glslc "$@"' \
        > "$cache/glslc"
    chmod +x "$cache/glslc"
    "$cache/vulkan-shaders-gen" --output-dir "$cache/spv" --target-hpp "$cache/ggml-vulkan-shaders.hpp"
    # one generator run per shader source (each starts its glslc compiles in parallel); the C
    # arrays it writes are replaced by .incbin at once (scripts/fetch/vulkan-sources.py embed)
    export cache src root
    ls "$src/vulkan-shaders/"*.comp | xargs -P "$(nproc)" -I{} bash -c '
        name=$(basename "{}")
        "$cache/vulkan-shaders-gen" --glslc "$cache/glslc" --source "{}" --output-dir "$cache/spv" \
            --target-hpp "$cache/ggml-vulkan-shaders.hpp" --target-cpp "$cache/cpp/$name.arrays.cpp" >/dev/null
        python3 "$root/scripts/fetch/vulkan-sources.py" embed "$cache/cpp/$name.arrays.cpp" "$cache/spv" \
            "$cache/cpp/$name.cpp" "$cache/cpp/$name.S"
        rm -f "$cache/cpp/$name.arrays.cpp" "$cache/cpp/$name.arrays.cpp.d"'
    echo "fetch-vulkan: $(ls "$cache/spv" | wc -l) shaders compiled with $(glslc --version | sed -n 1p) in $((SECONDS - started)) s" >&2
    touch "$cache/done"
fi

# 3. the archive, for the release's headers
"$root/scripts/fetch/fetch-reference.sh" "$release"
headers="$root/third_party/$package-$version_of_release/cpp"
[ "$release" != 0.4.3 ] && [ "$release" != whisper.rn@0.4.3 ] || headers="$root/third_party/whisper.rn/cpp"
build="$src/build-$version_of_release"
archive="$build/libwsp_ggml_vulkan.a"
if [ ! -f "$archive" ] || [ "$src/.sha256" -nt "$archive" ] || [ "$cache/done" -nt "$archive" ]; then
    started=$SECONDS
    rm -rf "$build"
    mkdir -p "$build"
    flags=(-O2 -fPIC -I"$headers" -I"$headers/ggml-cpu" -I"$src" -I"$cache")
    objects=()
    for source in "$src/"*.cpp; do
        objects+=("$build/$(basename "$source" .cpp).o")
    done
    printf '%s\n' "$src/"*.cpp | xargs -P "$(nproc)" -I{} sh -c 'c++ -std=c++17 "$@" -c "{}" -o "$0/$(basename "{}" .cpp).o"' \
        "$build" "${flags[@]}"
    for shader in "$cache/cpp/"*.cpp; do
        name=$(basename "$shader" .cpp)
        objects+=("$build/$name.o" "$build/$name.S.o")
    done
    export cache build flags_line="${flags[*]}"
    ls "$cache/cpp/"*.cpp | xargs -P "$(nproc)" -I{} bash -c '
        name=$(basename "{}" .cpp)
        c++ -std=c++17 $flags_line -c "{}" -o "$build/$name.o"
        cc -c "$cache/cpp/$name.S" -o "$build/$name.S.o"'
    ar rcs "$archive" "${objects[@]}"
    echo "fetch-vulkan: $archive built in $((SECONDS - started)) s" >&2
fi
echo "$archive"
