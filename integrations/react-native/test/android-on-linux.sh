#!/usr/bin/env bash
# Tests android/ as far as a Linux machine without the NDK can, for one release (default
# whisper.rn 0.4.3; llama.rn@VERSION for llama.rn): that release's own Android CMakeLists
# (whisper.rn's android/src/main/CMakeLists.txt; llama.rn's, which adds rnllama/ under
# RNLLAMA_BUILD_FROM_SOURCE, Gradle's rnllamaBuildFromSource), changed by android/apply.sh (twice:
# one block), is configured for arm64 (ANDROID_ABI=arm64-v8a) with Debian's aarch64 cross compiler
# (cmake/linux-cross.cmake; clang-14 and lld for llama.rn, whose flags are clang's, as the NDK's
# compiler is) in place of the NDK's. The block finds the package as an app's node_modules holds
# it: build/integration-android/node_modules/wsp-ggml-backend, a link to this checkout. The
# configure step must name the release; no library of the package's that compiles ggml keeps a
# backend-layer source (CMake's file API), and each must link the archive; llama.rn's Gradle file
# must build from source by default (llama.rn 0.13's layout: its sources from
# cmake/rnllama-sources.cmake over vendor/llama.cpp). For the newest release of each package (and
# of a preview family), one arm64 library with the package's ARM kernels (whisper.rn's rnwhisper_v8fp16_va_2,
# -march=armv8.2-a+fp16; llama.rn's JNI library rnllama_jni_v8_2_dotprod over
# rnllama_v8_2_dotprod, -march=armv8.2-a+dotprod, with LTO) is built with no layer object and,
# loaded under qemu, must compute a graph through the scheduler; another is only configured.
#   android-on-linux.sh [RELEASE]
#   android-on-linux.sh --unserved    for a whisper.rn release the release table lacks, apply.sh
#                                     and (with the include line added by hand) the configure step
#                                     must fail, naming the served releases
#   android-on-linux.sh --installed PACKAGE_DIR [--expect-off | --build]
#                                     a package the npm package wsp-ggml-backend has changed in an
#                                     app's node_modules, configured in place for the Rust target
#                                     the NDK maps arm64-v8a to (aarch64-linux-android): the npm
#                                     package's prebuilt archive where it has one (the configure
#                                     step says which), else built by cargo, which must then be
#                                     there; the archive target built. --expect-off: the app's
#                                     android/gradle.properties says wspGgmlBackendEnabled=false,
#                                     and the configure step must leave the package's own layer in
#                                     place. --build: then also the C++ library and the load check
#                                     as for a full family, from a copy of the installed package
#                                     with the JNI sources replaced (they need the JNI headers),
#                                     beside a node_modules that holds the app's wsp-ggml-backend
# The build trees stay in build/integration-android/ (a second run rebuilds only what changed);
# WSP_INTEGRATION_CARGO_DIR names another cargo target folder (one without the archives a
# previous run built).
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$root"

unserved=""
installed=""
expect_off=""
build_installed=""
if [ "${1:-}" = --installed ] && [ -d "${2:-}" ]; then
    installed=$(cd "$2" && pwd)
    case "${3:-}" in
        --expect-off) expect_off=1 ;;
        --build) build_installed=1 ;;
    esac
    wsp_release "$installed"
    release=$wsp_package@$wsp_version
elif [ "${1:-}" = --unserved ]; then
    # a real release the table does not serve (0.0.0 in a copy of 0.4.3 once every one is served)
    unserved=0.0.0
    release=0.4.3
    for candidate in 0.6.0 0.5.4 0.5.1; do
        if ! wsp_release "$candidate" 2>/dev/null; then
            unserved=$candidate
            release=$candidate
            break
        fi
    done
else
    release=${1:-0.4.3}
    wsp_release "$release"
fi

# (an installed package is tested without Rust too: the cross compiler and qemu are there from a
# run for a release, or from scripts/setup.sh --all)
[ -n "$installed" ] || scripts/phones/cross.sh --install aarch64-unknown-linux-gnu >/dev/null
gnu=aarch64-linux-gnu
case "$wsp_package" in
    whisper.rn) jni=jni.cpp variant=rnwhisper_v8fp16_va_2 loaded=rnwhisper_v8fp16_va_2 compiler=() ;;
    llama.rn) jni=RNLlamaJSI.cpp variant=rnllama_v8_2_dotprod loaded=rnllama_jni_v8_2_dotprod
              compiler=(-DWSP_CROSS_CLANG=clang-14) ;;
esac
rust_target=()
if [ -n "$installed" ]; then
    ref=$installed pkg=$installed
    work="$root/build/integration-android/installed-$release"
    # as the NDK's toolchain maps arm64-v8a; linked into a GNU/Linux library with stand-ins for
    # the bionic functions Rust's standard library for Android calls (test/bionic_standin.c)
    rust_target=(-DGGMLRS_RUST_TARGET=aarch64-linux-android)
else
    ref=$(reference "$release")
    work="$root/build/integration-android/${unserved:-$release}"
    pkg="$work/pkg"
    # the blocks android/apply.sh writes find this checkout as an app's node_modules holds the
    # package
    mkdir -p "$root/build/integration-android/node_modules"
    ln -sfn "$root" "$root/build/integration-android/node_modules/wsp-ggml-backend"
fi
cmakelists="$pkg/$wsp_android_cmake"
mkdir -p "$work/stubs/cmake"
link_flags="-L$work/stubs -Wl,--no-undefined"
# clang links with lld, as the NDK's does (GNU ld's LLVM plugin would read the LLVM bitcode that
# Rust's standard library embeds beside its machine code, from a newer LLVM)
if [ ${#compiler[@]} -gt 0 ]; then link_flags="$link_flags -fuse-ld=lld-14"; fi

# The package's layout (unless it is an installed one): the Android CMakeLists reach the sources
# as ../../../cpp (rnllama/: ../../../../cpp; from llama.rn 0.13 through ../../../cmake/ also
# vendor/) and the include reads the package.json above. The JNI sources (whisper.rn's jni.cpp,
# llama.rn's RNLlamaJSI.cpp) and cpp/jsi/*.cpp need the JNI and React Native headers:
# test/backend_check.cpp and empty files stand in for them.
make_package() {
    rm -rf "$pkg"
    mkdir -p "$pkg/android/src/main" "$pkg/cpp"
    for entry in "$ref"/cpp/*; do
        ln -s "$entry" "$pkg/cpp/"
    done
    for entry in "$ref"/*; do
        case "${entry##*/}" in android | cpp | package.json) ;; *) ln -s "$entry" "$pkg/" ;; esac
    done
    if [ -d "$ref/cpp/jsi" ]; then
        rm "$pkg/cpp/jsi"
        mkdir "$pkg/cpp/jsi"
        ln -s "$ref"/cpp/jsi/*.h "$pkg/cpp/jsi/"
        for source in "$ref"/cpp/jsi/*.cpp; do
            echo "// stands in for $(basename "$source"), which needs React Native's JSI headers" > "$pkg/cpp/jsi/$(basename "$source")"
        done
    fi
    if [ -n "$unserved" ]; then
        sed "s/\"version\": *\"[^\"]*\"/\"version\": \"$unserved\"/" "$ref/package.json" > "$pkg/package.json"
    else
        cp "$ref/package.json" "$pkg/"
    fi
    (cd "$ref" && find android -type f) | while read -r file; do
        mkdir -p "$pkg/$(dirname "$file")"
        cp "$ref/$file" "$pkg/$file"
    done
    cp "$here/test/backend_check.cpp" "$pkg/android/src/main/$jni"
}
if [ -n "$unserved" ]; then
    make_package
    # apply.sh refuses; the line, as a patch made for an earlier release brings it, stops the
    # configure step below
    if "$here/android/apply.sh" "$pkg" >/dev/null 2>&1; then
        echo "android-on-linux: apply.sh accepted whisper.rn $unserved" >&2
        exit 1
    fi
    grep -q wsp-ggml-backend "$cmakelists" && { echo "android-on-linux: apply.sh refused, but changed $cmakelists" >&2; exit 1; }
    echo "include(\"$here/android/wsp-ggml-backend.cmake\")" >> "$cmakelists"
elif [ -z "$installed" ]; then
    make_package
    "$here/android/apply.sh" "$pkg" >/dev/null
    "$here/android/apply.sh" "$pkg" >/dev/null  # twice: one block
    [ "$(grep -c '^# wsp-ggml-backend begin' "$cmakelists")" -eq 1 ] || {
        echo "android-on-linux: applied twice, $cmakelists has $(grep -c '^# wsp-ggml-backend begin' "$cmakelists") blocks" >&2
        exit 1
    }
fi

# Gradle's switch of the source build (llama.rn): apply.sh made it the default
from_source=()
if [ -n "$wsp_gradle_switch" ] && [ -z "$unserved" ]; then
    grep -qF "findProperty(\"$wsp_gradle_switch\") ?: wspGgmlBackendInstalled.toString()" "$pkg/android/build.gradle" || {
        echo "android-on-linux: $pkg/android/build.gradle does not build from source by default" >&2
        exit 1
    }
    echo "android-on-linux: android/build.gradle builds from source while wsp-ggml-backend is installed, unless $wsp_gradle_switch=false"
    # what Gradle passes CMake then
    from_source=(-DRNLLAMA_BUILD_FROM_SOURCE=ON)
fi
# The programs written with whisper.rn's names (backend_check.cpp) see another package's headers
# through the prefix map.
cxx_flags="-D_GNU_SOURCE -include cmath -include cstring"
if [ "$wsp_prefix" != wsp_ ]; then
    "$root/scripts/release/prefix-map.sh" "$wsp_prefix" "$(echo "$wsp_prefix" | tr a-z A-Z)" > "$work/prefix-map.h"
    cxx_flags="$cxx_flags -include $work/prefix-map.h"
fi

# The NDK's liblog and libandroid, which the CMakeLists links: empty stand-ins (whisper.rn calls
# them only when __ANDROID__ is defined); from 0.6, React Native's CMake packages (ReactAndroid,
# fbjni) with empty targets. _GNU_SOURCE: glibc's scheduling and CPU-set declarations, which
# Android's libc makes visible by default; <cmath>, <cstring>: rn-whisper.cpp gets them through the NDK's
# libc++ headers, not through libstdc++'s. --no-undefined: as the NDK's toolchain links.
for name in log android; do
    [ -f "$work/stubs/lib$name.so" ] || "$gnu-gcc" -shared -o "$work/stubs/lib$name.so" -x c /dev/null
done
if [ -n "$installed" ]; then
    # last on every link line (after the archive that needs it)
    "$gnu-gcc" -shared -o "$work/stubs/libbionic_standin.so" "$here/test/bionic_standin.c"
    rust_target+=(-DCMAKE_CXX_STANDARD_LIBRARIES=-lbionic_standin)
fi
for package in ReactAndroid:jsi,reactnative,turbomodulejsijni,react_nativemodule_core fbjni:fbjni; do
    name=${package%%:*}
    for target in $(echo "${package#*:}" | tr , ' '); do
        echo "if(NOT TARGET $name::$target)
    add_library($name::$target INTERFACE IMPORTED)
endif()"
    done > "$work/stubs/cmake/${name}Config.cmake"
done
build="$work/build"
mkdir -p "$build/.cmake/api/v1/query"
touch "$build/.cmake/api/v1/query/codemodel-v2"
configure=(cmake -DCMAKE_BUILD_TYPE=Release -Wno-dev --no-warn-unused-cli "${rust_target[@]}"
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/linux-cross.cmake" -DWSP_CROSS_GNU=$gnu "${compiler[@]}" -DANDROID_ABI=arm64-v8a
    -DGGMLRS_CARGO_TARGET_DIR="${WSP_INTEGRATION_CARGO_DIR:-$root/build/integration-android/cargo}" "${from_source[@]}"
    -DLOG_LIB="$work/stubs/liblog.so" "-DCMAKE_SHARED_LINKER_FLAGS=$link_flags"
    -DReactAndroid_DIR="$work/stubs/cmake" -Dfbjni_DIR="$work/stubs/cmake" -DREACT_NATIVE_MINOR_VERSION=76
    -DCMAKE_C_FLAGS=-D_GNU_SOURCE "-DCMAKE_CXX_FLAGS=$cxx_flags")

if [ -n "$unserved" ]; then
    if "${configure[@]}" -S "$pkg/android/src/main" -B "$build" >"$work/configure.log" 2>&1; then
        echo "android-on-linux: whisper.rn $unserved was configured; it must be refused" >&2
        exit 1
    fi
    expected="whisper.rn $unserved is not served; served releases: $(wsp_served whisper.rn)"
    # (CMake wraps its messages: compare with the lines joined)
    tr -s ' \n' '  ' <"$work/configure.log" | grep -F "$expected" >/dev/null || {
        echo "android-on-linux: the configure step of whisper.rn $unserved did not say '$expected':" >&2
        cat "$work/configure.log" >&2
        exit 1
    }
    echo "android-on-linux: whisper.rn $unserved refused by apply.sh and at configure time: $expected"
    exit 0
fi

"${configure[@]}" -S "$pkg/android/src/main" -B "$build" >"$work/configure.log" || { cat "$work/configure.log" >&2; exit 1; }
{ grep "wsp-ggml-backend" "$work/configure.log" || true; } | sed 's/^-- //'
layer=$(cd "$ref/$wsp_layer" && ls ggml-backend*.cpp | paste -sd ' ')
# file_api own|swapped: every library of the package's that compiles ggml (ggml.c; not llama.rn's
# JNI wrappers), read from CMake's file API, compiles all the layer files the release's CMakeLists
# compiles (own), or none of them while it keeps the package's own sources and links the archive
# (swapped)
file_api() {
    python3 - "$build" "$layer" "$wsp_libraries" "${wsp_package%.rn}.cpp" "$1" <<'PY'
import glob, json, os, sys
build, layer, prefix, own, mode = sys.argv[1], set(sys.argv[2].split()), sys.argv[3], sys.argv[4], sys.argv[5]
index = json.load(open(max(glob.glob(f"{build}/.cmake/api/v1/reply/index-*.json"))))
reply = os.path.dirname(max(glob.glob(f"{build}/.cmake/api/v1/reply/index-*.json")))
codemodel = json.load(open(os.path.join(reply, index["reply"]["codemodel-v2"]["jsonFile"])))
checked = []
for ref in codemodel["configurations"][0]["targets"]:
    if not ref["name"].startswith(prefix):
        continue
    target = json.load(open(os.path.join(reply, ref["jsonFile"])))
    sources = {os.path.basename(s["path"]) for s in target["sources"]}
    if "ggml.c" not in sources:
        continue
    kept = sources & layer
    links = " ".join(f["fragment"] for f in target.get("link", {}).get("commandFragments", []))
    archive = "libwsp_ggml_backend.a" in links
    if mode == "own" and (kept != layer or archive):
        sys.exit(f"android-on-linux: {ref['name']}: layer sources {sorted(kept)}, links the archive: {archive}")
    if mode == "swapped" and (kept or not archive or own not in sources):
        sys.exit(f"android-on-linux: {ref['name']}: layer sources {sorted(kept)}, links the archive: {archive}")
    checked.append(ref["name"])
if not checked:
    sys.exit(f"android-on-linux: no {prefix} library configured")
if mode == "own":
    print(f"android-on-linux: {', '.join(checked)}: {', '.join(sorted(layer))} compiled, no archive linked")
else:
    print(f"android-on-linux: {', '.join(checked)}: none of {', '.join(sorted(layer))} compiled; "
          f"libwsp_ggml_backend.a linked")
PY
}

if [ -n "$expect_off" ]; then
    ! grep -q "backend layer linked into" "$work/configure.log" || {
        echo "android-on-linux: $wsp_package $wsp_version: the library is linked; it must be off" >&2
        exit 1
    }
    file_api own
    if grep -q "wsp-ggml-backend: off (wspGgmlBackendEnabled=false" "$work/configure.log"; then
        why="off (wspGgmlBackendEnabled=false)"
    else
        why="wsp-ggml-backend not installed"
    fi
    echo "android-on-linux: $wsp_package $wsp_version: $why, the package's own layer builds"
    exit 0
fi
triple=aarch64-unknown-linux-gnu
if [ -n "$installed" ]; then triple=aarch64-linux-android; fi
grep -q "wsp-ggml-backend: $wsp_package $wsp_version, $triple backend layer linked into $wsp_libraries" \
    "$work/configure.log" || { echo "android-on-linux: the configure step does not name $wsp_package $wsp_version" >&2; exit 1; }

file_api swapped

# A release other than its package's newest (or a preview's), or of a package left out of
# WSP_ANDROID_BUILDS (the packages whose C++ is built; unset: all, empty: none): the configure step
# and the libraries' sources only (its archive for aarch64 is the same crate with the family's
# feature). scripts/phones/test-phones.sh builds none: in CI the npm package's test builds
# whisper.rn's newest from the installed package, and llama.rn's takes five minutes.
built=" $("$root/scripts/release/release-table.sh" releases "$wsp_package" | tail -n 1) $("$root/scripts/release/release-table.sh" newest --previews | sed -n "s/^$wsp_package@//p" | paste -sd ' ') "
if [ -z "$installed" ] && { [[ "$built" != *" $wsp_version "* ]] || [[ " ${WSP_ANDROID_BUILDS-$wsp_package} " != *" $wsp_package "* ]]; }; then
    echo "android-on-linux: $wsp_package $wsp_version: configured; no archive, C++ build or load check"
    exit 0
fi
# An installed package (whose JNI sources need the JNI headers): its archive, built by cargo for
# aarch64-linux-android unless prebuilt, but not the C++ build nor the load check; with --build:
# those from a copy of it.
if [ -n "$installed" ]; then
    nice cmake --build "$build" --target wsp_ggml_backend_archive >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
    archives=$(sed -n 's/.*backend layer linked into .* (archives: \(.*\))$/\1/p' "$work/configure.log")
    echo "android-on-linux: $wsp_package $wsp_version${installed:+ (installed)}: the archives ($archives) built or found; no C++ build or load check"
    [ -n "$build_installed" ] || exit 0
    # the copy, beside a node_modules holding the wsp-ggml-backend the installed package finds
    found=$(cd "$installed" && while [ ! -d node_modules/wsp-ggml-backend ] && [ "$PWD" != / ]; do cd ..; done; echo "$PWD/node_modules/wsp-ggml-backend")
    pkg="$work/pkg" build="$work/build-copy"
    make_package
    mkdir -p "$work/node_modules" "$build/.cmake/api/v1/query"
    ln -sfn "$found" "$work/node_modules/wsp-ggml-backend"
    "${configure[@]}" -S "$pkg/android/src/main" -B "$build" >"$work/configure-copy.log" || { cat "$work/configure-copy.log" >&2; exit 1; }
fi

nice cmake --build "$build" -j 2 --target $loaded >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
lib="$build/lib$loaded.so"
# the objects the variant was linked from (Makefiles: link.txt, in rnllama/ for llama.rn)
link_txt=$(find "$build" -path "*/CMakeFiles/$variant.dir/link.txt" | head -n 1)
objects=$(grep -oE '[^ ]+\.o' "$link_txt")
if echo "$objects" | grep -E 'ggml-backend(-[a-z]+)?\.cpp\.o'; then
    echo "android-on-linux: $wsp_package's backend layer was still linked into $variant" >&2
    exit 1
fi
echo "android-on-linux: lib$variant.so linked from $(echo "$objects" | wc -l) objects, no backend-layer object among them"

"$gnu-gcc" -std=c11 -Wall -Wextra -Werror -o "$work/load_check" "$here/test/load_check.c" -ldl
qemu-aarch64 -L "/usr/$gnu" -E "LD_LIBRARY_PATH=$work/stubs" "$work/load_check" "$lib" | sed "s|$build/||"
