#!/usr/bin/env bash
# Fetch a whisper.rn release from npm (the reference backend layer and the ggml core the tests
# link against), check it against npm's published integrity, and unpack it into third_party/
# (ignored by git): cpp/, and the Android build files and the podspec that integrations/react-native/
# adapts (a package whose layer is not in cpp/: the whole package too, in package/). Idempotent: does nothing when already there. llama.rn's releases the same way.
#
#   scripts/fetch/fetch-reference.sh [RELEASE]    RELEASE: any stable whisper.rn release with this backend
#   layer (0.4.3, the default; 0.5.1 to 0.5.5, 0.6.0, 0.7.3, 0.7.4), each pinned by its npm
#   integrity (or whisper.rn@VERSION), or llama.rn@VERSION (0.12.0 to 0.12.9, the preview 0.13.0-rc.5), or
#   llama-cpp-python@VERSION (0.3.36: plain ggml, from PyPI)
#   scripts/fetch/fetch-reference.sh --all        every one of them, side by side (most of the time is
#                                           npm's), and the table's llama-cpp-python releases
set -euo pipefail

# release  folder under third_party/  npm integrity of the tarball
RELEASES='
0.4.3 whisper.rn       sha512-isvW9AAtY73l7yvH5u9MzR8J1T4O1J8XXjbYZwiEjQaisoWW25gkiDgYeSK69NmY/RUuPNC+G8iJB76oKCQk5w==
0.5.5 whisper.rn-0.5.5 sha512-awFE+ImMtRdGhA+hjm3GEwnSvyEVP1sdhMb+MyCa5bVdoOCpaxrwVwXDo9U46Qwkhwml3PCFaauTsGmRkTyhdw==
0.5.4 whisper.rn-0.5.4 sha512-4G3MFnC/EQoUFqv1k6EahERI6W3vAgfau2uyLidq0/axZPuHC4ZMhPEtTYaGljUN8OzD2W8erLRm/sA3jR5FBQ==
0.7.4 whisper.rn-0.7.4 sha512-9MyWFoRmUWHDHLhjm4dZgZzxG2fFNuClOPE/Ne5KXlm0vSi4It5oS2xZi9WfPEfUGHcgPMiVviv9t18zC4BSNw==
0.7.3 whisper.rn-0.7.3 sha512-4N1KeXkdlkReX0UB4dFdORe0MRDBPYriUHWBgZnpuxE98lRnyCbqtcP21nwjytQbDzNCMjYFS+m1QxrsCDB9UQ==
0.6.0 whisper.rn-0.6.0 sha512-zuwIdiZzUYZDZSrGRBrM7kNknWWYCPT6BcGgmhTlZ5Z8k0QTtHRV/RxhmqrXZ8PAgh8FtUyrH3aQJptrsOHDDA==
0.5.1 whisper.rn-0.5.1 sha512-Inu2mcP8vH2yWfVatqAoyYnwhq1UrTx9dYbzCYLAg/7Y78qs65MPg1WNc7JJUBrekGEayu8B8MkxiAEoVrqVOA==
0.5.2 whisper.rn-0.5.2 sha512-728K/5ePGfIW8BbXlN8+zFn2D9qwgV5SElrRVllvYw2uDAQ91TIoPFOP2K89DiGLdsQbZ4WC79AVjA18nH9lHw==
0.5.3 whisper.rn-0.5.3 sha512-etgsRmwy9Rw8AAMX+ujo4kB6LQz+djHVCs9nFrqUYxfaEuyvEQXqrvxlP64UqQZbDhoWVeO/Pm9g/8f21eye1w==
llama.rn@0.12.0 llama.rn-0.12.0 sha512-RDcY1wVxARBblNmYUncAfSrKnyPtCVwZFtERhyL9oZBcZshMK+p2/yjNYHvnU6UEokTlHUFFqGp+3CUcUJpVtQ==
llama.rn@0.12.1 llama.rn-0.12.1 sha512-oJG/2e8AHskcpVcenPx8riMq2Gc/hQx9Q6OdVi73gYKyF3/c32zZbaeWP+wfkBtSf4jO1VFFhcecaUz/29CvBw==
llama.rn@0.12.3 llama.rn-0.12.3 sha512-SAMQ0Zj2CpngHNpqzxmIydo64tO3UYiOFeIHWwKc3yWMI5esjv4BJGvZj3Ca+rQWEoF7x+a/BjloiHp6+F141Q==
llama.rn@0.12.4 llama.rn-0.12.4 sha512-53oQKv2rzYbsSfFMONcj+KnFfAJ9S5gO9l1FyRi35Zmh8PeLUa7Zzh0FUQ6/+LwZH5SYnCulMeA94GS+ls/y7w==
llama.rn@0.12.5 llama.rn-0.12.5 sha512-XCGrmf39Mh0Roo97Rwq+8j34xrAPw3faYdaFZl6GCKGbrcEdoxPGZWy+44GjAK44M399+qjFHJzVrmzYrlX6LQ==
llama.rn@0.12.6 llama.rn-0.12.6 sha512-qh8ysRykn0IQqN6kO7xirKhuZnZYzuI3fQWs9cFoQHpQeYfCfkhqgRuhzTw1Bh/A1H8Z2PPu5PFS45R2jfszTA==
llama.rn@0.12.8 llama.rn-0.12.8 sha512-m70240EdSzq7fhjQ7ocmbuGvurXBiusPLdtJrFwpd3piLSOgKdspBtAMH752Fw3DU7t3k4OpySful7UsgJokYA==
llama.rn@0.12.9 llama.rn-0.12.9 sha512-uRsTVARp1KnDkDg00FvOGIrN6SZfMqYVJfCOdxN9FSyGufLC+Aad6oFWZVEO8vmtNqu+JBlsCGevP4sJGifAvg==
llama.rn@0.13.0-rc.5 llama.rn-0.13.0-rc.5 sha512-zLMIcRXNQbZCAo9us+imVHVYx2fezbJF8PCeTRjbx4YBU36tj3kAwp5ecr2Wrqi+1wIBsM1yYnTgCcttsyUiTg==
'

VERSION=${1:-0.4.3}
VERSION=${VERSION#whisper.rn@}  # whisper.rn's releases are named by their version alone
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$VERSION" = --all ]; then
    pids=()
    for release in $(awk 'NF { print $1 }' <<<"$RELEASES") \
        $("$root/scripts/release/release-table.sh" releases llama-cpp-python | sed 's/^/llama-cpp-python@/'); do
        "$0" "$release" &
        pids+=($!)
    done
    failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    exit "$failed"
fi

# flatten_llama_cpp <llama.cpp> <cpp>: a vendored llama.cpp in upstream's layout (ggml/include,
# ggml/src, src, include) laid out in <cpp> as the npm packages' cpp/ folder is: ggml's headers
# and sources, its CPU backend in ggml-cpu/, llama.cpp's sources and models, and the JSON header
# the examples use
flatten_llama_cpp() {
    local from=$1 cpp=$2
    mkdir -p "$cpp"
    cp "$from"/ggml/include/*.h "$from"/include/*.h "$from/LICENSE" "$cpp/"
    find "$from/ggml/src" "$from/src" -maxdepth 1 -type f \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) \
        -exec cp {} "$cpp/" \;
    cp -r "$from/ggml/src/ggml-cpu" "$from/src/models" "$from/vendor/nlohmann" "$cpp/"
}

# the parts of a vendored llama.cpp that flatten_llama_cpp reads
llama_cpp_parts=(ggml/include ggml/src src include vendor/nlohmann LICENSE)

# Plain ggml: llama.cpp and its ggml as PyPI's llama-cpp-python vendors them (its sdist, pinned
# by sha256 in llama-cpp-python-sdist.sh), flattened into cpp/; beside it llama.cpp's own test
# programs, tests/, which find ggml's private headers as ../ggml/src/ (a link to cpp/).
case "$VERSION" in
    llama-cpp-python@*)
        VERSION=${VERSION#*@}
        dest="$root/third_party/llama-cpp-python-$VERSION"
        source "$root/scripts/fetch/llama-cpp-python-sdist.sh"
        sha256=$(sdist_sha256 "$VERSION")
        if [ -n "$sha256" ] && [ "$(cat "$dest/.integrity" 2>/dev/null)" = "$sha256" ] && [ -f "$dest/tests/test-alloc.cpp" ]; then
            exit 0
        fi
        work=$(mktemp -d)
        trap 'rm -rf "$work" "$dest.new.$$"' EXIT
        sdist=$(sdist_fetch "$VERSION" "$work")
        vendored="llama_cpp_python-$VERSION/vendor/llama.cpp"
        tar -xzf "$sdist" -C "$work" --wildcards $(printf "$vendored/%s\n" "${llama_cpp_parts[@]}") \
            "$vendored/tests/*.cpp" "$vendored/tests/*.h"
        from="$work/$vendored"
        flatten_llama_cpp "$from" "$dest.new.$$/cpp"
        cp -r "$from/tests" "$dest.new.$$/"
        mkdir -p "$dest.new.$$/ggml"
        ln -s ../cpp "$dest.new.$$/ggml/src"
        echo "$sha256" > "$dest.new.$$/.integrity"
        rm -rf "$dest"
        mv "$dest.new.$$" "$dest"
        echo "fetch-reference: llama-cpp-python $VERSION's llama.cpp and ggml unpacked into $dest" >&2
        exit 0
        ;;
esac

read -r _ folder INTEGRITY < <(awk -v v="$VERSION" '$1 == v' <<<"$RELEASES") || true
if [ -z "${INTEGRITY:-}" ]; then
    echo "fetch-reference: unknown release '$VERSION' (known: $(awk 'NF { print $1 }' <<<"$RELEASES" | paste -sd " "))" >&2
    exit 2
fi

dest="$root/third_party/$folder"
stamp="$dest/.integrity"

# whisper.rn@VERSION when no package is named
package=whisper.rn
case "$VERSION" in *@*) package=${VERSION%@*}; VERSION=${VERSION#*@} ;; esac
# what integrations/react-native adapts: the Android build (the main CMakeLists, the one that
# builds the layer, and Gradle's file where a property switches the source build) and the podspec
table="$root/scripts/release/release-table.sh"
android_cmake=$("$table" package "$package" android_cmake)
adapted=(android/src/main/CMakeLists.txt "$android_cmake" "$("$table" package "$package" podspec)")
if [ -n "$("$table" package "$package" gradle_switch)" ]; then adapted+=(android/build.gradle); fi
# where the release's layer lives in the package (releases.txt's layer: cpp/ unless it vendors
# llama.cpp in upstream's layout, as llama.rn from 0.13 does)
layer=$("$table" fact "$package@$VERSION" layer 2>/dev/null || true)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$INTEGRITY" ] && [ -f "$dest/cpp/ggml-backend.cpp" ] && [ -f "$dest/$android_cmake" ] \
    && { [ -z "$layer" ] || [ -f "$dest/package/$layer/ggml-backend.cpp" ]; }; then
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work" "$dest.new.$$"' EXIT
(cd "$work" && npm pack "$package@$VERSION" --silent >/dev/null)
tarball="$work/$package-$VERSION.tgz"

actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$actual" != "$INTEGRITY" ]; then
    echo "fetch-reference: integrity mismatch for $package@$VERSION" >&2
    echo "  expected $INTEGRITY" >&2
    echo "  actual   $actual" >&2
    exit 1
fi

# unpacked beside the folder, then put in its place, so that another build reading the folder
# meanwhile sees the old tree or the new one
unpacked="$dest.new.$$"
rm -rf "$unpacked"
mkdir -p "$unpacked"
tar -xzf "$tarball" -C "$unpacked" --strip-components=1 package/cpp package/package.json package/LICENSE \
    $(printf 'package/%s\n' "${adapted[@]}" | sort -u)
# A vendored llama.cpp (llama.rn from 0.13) is flattened into cpp/ beside the package's own
# sources, as the older releases lay it out for the C suite; the integration's tests read the
# package as npm gives it, kept whole in package/
if [ -n "$layer" ]; then
    vendored=${layer%/ggml/src}
    tar -xzf "$tarball" -C "$unpacked" --strip-components=1 $(printf "package/$vendored/%s\n" "${llama_cpp_parts[@]}")
    flatten_llama_cpp "$unpacked/$vendored" "$unpacked/cpp"
    rm -rf "$unpacked/${vendored%%/*}"
    mkdir "$unpacked/package"
    tar -xzf "$tarball" -C "$unpacked/package" --strip-components=1
fi
echo "$INTEGRITY" > "$unpacked/.integrity"
rm -rf "$dest.old.$$"
if [ -e "$dest" ]; then mv "$dest" "$dest.old.$$"; fi
mv "$unpacked" "$dest"
rm -rf "$dest.old.$$"
echo "fetch-reference: $package@$VERSION unpacked into $dest" >&2
