# Sourced by the scripts that take parts of ggml from the sdist of PyPI's llama-cpp-python
# (fetch-rpc.sh, fetch-vulkan.sh): the pinned download and whisper.rn's renames.

# sdist_sha256 VERSION: the pinned sha256 of a release's sdist (nothing for one not pinned)
sdist_sha256() {
    awk -v v="$1" '$1 == v { print $2 }' <<'EOF_SDISTS'
0.3.14 c7ffd71685923a911206a40e972c1ec739aa21032100fdc8618316571b173507
0.3.35 1139dbb54509074b70893fab8554e3b079aa9f4d312058ce4018ef0019e3de12
0.3.36 832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
EOF_SDISTS
}

# sdist_fetch VERSION WORK: downloads the sdist into WORK, pinned by hash so that pip itself
# refuses anything else, checks the hash again, and prints the file's path. pip prepares its
# metadata in an isolated environment; its build backend may come as a wheel (building the
# backend and its own build dependencies from sdists would take minutes).
sdist_fetch() {
    local version=$1 work=$2 sdist actual sha256
    sha256=$(sdist_sha256 "$version")
    if [ -z "$sha256" ]; then
        echo "llama-cpp-python $version: no pinned sha256 (scripts/fetch/llama-cpp-python-sdist.sh)" >&2
        return 1
    fi
    echo "llama-cpp-python==$version --hash=sha256:$sha256" > "$work/requirements.txt"
    python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python --require-hashes \
        -r "$work/requirements.txt" -d "$work" >&2
    sdist="$work/llama_cpp_python-$version.tar.gz"
    actual=$(sha256sum "$sdist" | cut -d' ' -f1)
    if [ "$actual" != "$sha256" ]; then
        echo "sha256 mismatch for llama-cpp-python $version: expected $sha256, got $actual" >&2
        return 1
    fi
    echo "$sdist"
}

# package_renames PACKAGE < IN > OUT: ggml's names as the package renames them, with its prefix
# (the release table's): GGML_ and ggml_, GGUF_ and gguf_; whisper.rn's bootstrap also renames
# quantize_ and dequantize_, in its order (so that "dequantize_" ends up as "wsp_dewsp_quantize_",
# as in whisper.rn's own sources).
package_renames() {
    local symbol macro
    symbol=$("$(dirname "${BASH_SOURCE[0]}")/../release/release-table.sh" prefix "$1@") || return 1
    macro=$(echo "$symbol" | tr a-z A-Z)
    local renames=(-e "s/GGML_/${macro}GGML_/g" -e "s/ggml_/${symbol}ggml_/g" -e "s/GGUF_/${macro}GGUF_/g"
                   -e "s/gguf_/${symbol}gguf_/g")
    if [ "$1" = whisper.rn ]; then
        renames+=(-e "s/dequantize_/${symbol}dequantize_/g" -e "s/quantize_/${symbol}quantize_/g")
    fi
    sed "${renames[@]}"
}
