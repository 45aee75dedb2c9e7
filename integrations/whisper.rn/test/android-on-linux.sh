#!/usr/bin/env bash
# Tests android/ as far as a Linux machine without the NDK can, for one whisper.rn release
# (default 0.4.3): that release's own android/src/main/CMakeLists.txt, changed by android/apply.sh,
# is configured for arm64 (ANDROID_ABI=arm64-v8a) with Debian's aarch64 cross compiler
# (cmake/linux-cross.cmake) in place of the NDK's. The configure step must name the release; no
# rnwhisper* library may keep a backend-layer source (CMake's file API), and each must link the
# archive. For a family the release table tests in full, the arm64 library with whisper.rn's ARM
# kernels (rnwhisper_v8fp16_va_2, -march=armv8.2-a+fp16) is built with no layer object and, loaded
# under qemu, must compute a graph through the scheduler; for a lean one, only the archive is built.
#   android-on-linux.sh [RELEASE]
#   android-on-linux.sh --unserved    for a release the release table lacks, apply.sh and (with
#                                     the include line added by hand) the configure step must
#                                     fail, naming the served releases
# The build trees stay in build/integration-android/ (a second run rebuilds only what changed).
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$root"

unserved=""
if [ "${1:-}" = --unserved ]; then
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

scripts/cross.sh --install aarch64-unknown-linux-gnu >/dev/null
ref=$(reference "$release")
gnu=aarch64-linux-gnu
work="$root/build/integration-android/${unserved:-$release}"
pkg="$work/pkg"
rm -rf "$pkg"
mkdir -p "$pkg/android/src/main" "$pkg/cpp" "$work/stubs/cmake"
# The package's layout: android/src/main/CMakeLists.txt reaches the sources as ../../../cpp and
# the include reads ../../../package.json. jni.cpp and, from 0.6, cpp/jsi/RNWhisperJSI.cpp need
# the JNI and React Native headers: test/backend_check.cpp and an empty file stand in for them.
for entry in "$ref"/cpp/*; do
    ln -s "$entry" "$pkg/cpp/"
done
if [ -d "$ref/cpp/jsi" ]; then
    rm "$pkg/cpp/jsi"
    mkdir "$pkg/cpp/jsi"
    ln -s "$ref"/cpp/jsi/*.h "$pkg/cpp/jsi/"
    echo "// stands in for RNWhisperJSI.cpp, which needs React Native's JSI headers" > "$pkg/cpp/jsi/RNWhisperJSI.cpp"
fi
if [ -n "$unserved" ]; then
    sed "s/\"version\": *\"[^\"]*\"/\"version\": \"$unserved\"/" "$ref/package.json" > "$pkg/package.json"
else
    cp "$ref/package.json" "$pkg/"
fi
cp "$ref/android/src/main/CMakeLists.txt" "$pkg/android/src/main/"
cp "$here/test/backend_check.cpp" "$pkg/android/src/main/jni.cpp"
cmakelists="$pkg/android/src/main/CMakeLists.txt"
if [ -n "$unserved" ]; then
    # apply.sh refuses; the line, as a patch made for an earlier release brings it, stops the
    # configure step below
    if "$here/android/apply.sh" "$pkg" >/dev/null 2>&1; then
        echo "android-on-linux: apply.sh accepted whisper.rn $unserved" >&2
        exit 1
    fi
    grep -q wsp-ggml-backend "$cmakelists" && { echo "android-on-linux: apply.sh refused, but changed $cmakelists" >&2; exit 1; }
    echo "include(\"$here/android/wsp-ggml-backend.cmake\")" >> "$cmakelists"
else
    "$here/android/apply.sh" "$pkg" >/dev/null
    "$here/android/apply.sh" "$pkg" >/dev/null  # twice: adds the line once
    [ "$(grep -c wsp-ggml-backend.cmake "$cmakelists")" -eq 1 ]
fi

# The NDK's liblog and libandroid, which the CMakeLists links: empty stand-ins (whisper.rn calls
# them only when __ANDROID__ is defined); from 0.6, React Native's CMake packages (ReactAndroid,
# fbjni) with empty targets. _GNU_SOURCE: glibc's scheduling and CPU-set declarations, which
# Android's libc makes visible by default; <cmath>, <cstring>: rn-whisper.cpp gets them through the NDK's
# libc++ headers, not through libstdc++'s. --no-undefined: as the NDK's toolchain links.
for name in log android; do
    [ -f "$work/stubs/lib$name.so" ] || "$gnu-gcc" -shared -o "$work/stubs/lib$name.so" -x c /dev/null
done
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
configure=(cmake -S "$pkg/android/src/main" -B "$build" -DCMAKE_BUILD_TYPE=Release -Wno-dev --no-warn-unused-cli
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/linux-cross.cmake" -DWSP_CROSS_GNU=$gnu -DANDROID_ABI=arm64-v8a
    -DWSP_GGML_BACKEND_CARGO_TARGET_DIR="$root/build/integration-android/cargo"
    -DLOG_LIB="$work/stubs/liblog.so" "-DCMAKE_SHARED_LINKER_FLAGS=-L$work/stubs -Wl,--no-undefined"
    -DReactAndroid_DIR="$work/stubs/cmake" -Dfbjni_DIR="$work/stubs/cmake" -DREACT_NATIVE_MINOR_VERSION=76
    -DCMAKE_C_FLAGS=-D_GNU_SOURCE "-DCMAKE_CXX_FLAGS=-D_GNU_SOURCE -include cmath -include cstring")

if [ -n "$unserved" ]; then
    if "${configure[@]}" >"$work/configure.log" 2>&1; then
        echo "android-on-linux: whisper.rn $unserved was configured; it must be refused" >&2
        exit 1
    fi
    expected="whisper.rn $unserved is not served; served releases: $(wsp_served)"
    # (CMake wraps its messages: compare with the lines joined)
    tr -s ' \n' '  ' <"$work/configure.log" | grep -F "$expected" >/dev/null || {
        echo "android-on-linux: the configure step of whisper.rn $unserved did not say '$expected':" >&2
        cat "$work/configure.log" >&2
        exit 1
    }
    echo "android-on-linux: whisper.rn $unserved refused by apply.sh and at configure time: $expected"
    exit 0
fi

"${configure[@]}" >"$work/configure.log" || { cat "$work/configure.log" >&2; exit 1; }
grep "wsp-ggml-backend" "$work/configure.log" | sed 's/^-- //'
grep -q "wsp-ggml-backend: whisper.rn $release, aarch64-unknown-linux-gnu backend layer linked into rnwhisper" \
    "$work/configure.log" || { echo "android-on-linux: the configure step does not name whisper.rn $release" >&2; exit 1; }

# Every library the CMakeLists defines: its sources (CMake's file API) keep none of the layer
# files the release's CMakeLists compiles, keep all the others, and it links the archive.
layer=$(grep -oE 'ggml-backend(-[a-z]+)?\.cpp' "$ref/android/src/main/CMakeLists.txt" | sort -u | paste -sd ' ')
python3 - "$build" "$layer" <<'PY'
import glob, json, os, sys
build, layer = sys.argv[1], set(sys.argv[2].split())
index = json.load(open(max(glob.glob(f"{build}/.cmake/api/v1/reply/index-*.json"))))
reply = os.path.dirname(max(glob.glob(f"{build}/.cmake/api/v1/reply/index-*.json")))
codemodel = json.load(open(os.path.join(reply, index["reply"]["codemodel-v2"]["jsonFile"])))
checked = []
for ref in codemodel["configurations"][0]["targets"]:
    if not ref["name"].startswith("rnwhisper"):
        continue
    target = json.load(open(os.path.join(reply, ref["jsonFile"])))
    sources = {os.path.basename(s["path"]) for s in target["sources"]}
    kept = sources & layer
    links = " ".join(f["fragment"] for f in target.get("link", {}).get("commandFragments", []))
    if kept or "libwsp_ggml_backend.a" not in links or not {"ggml.c", "whisper.cpp"} <= sources:
        sys.exit(f"android-on-linux: {ref['name']}: layer sources {sorted(kept)}, "
                 f"links the archive: {'libwsp_ggml_backend.a' in links}")
    checked.append(ref["name"])
if not checked:
    sys.exit("android-on-linux: no rnwhisper library configured")
print(f"android-on-linux: {', '.join(checked)}: none of {', '.join(sorted(layer))} compiled; "
      f"libwsp_ggml_backend.a linked")
PY

# A family the table tests lean (`suite`): its archive, built by cargo for aarch64, but not the
# C++ build nor the load check.
if [ "$("$root/scripts/release-table.sh" fact "$release" suite)" != full ]; then
    nice cmake --build "$build" --target wsp_ggml_backend_archive >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
    echo "android-on-linux: whisper.rn $release (a lean family): the archive built; no C++ build or load check"
    exit 0
fi

lib_target=rnwhisper_v8fp16_va_2
nice cmake --build "$build" -j 2 --target $lib_target >"$work/build.log" 2>&1 || { tail -n 40 "$work/build.log" >&2; exit 1; }
lib="$build/lib$lib_target.so"
# the objects the library was linked from (Makefiles: link.txt)
objects=$(grep -oE '[^ ]+\.o' "$build/CMakeFiles/$lib_target.dir/link.txt")
if echo "$objects" | grep -E 'ggml-backend(-[a-z]+)?\.cpp\.o'; then
    echo "android-on-linux: whisper.rn's backend layer was still linked into $lib_target" >&2
    exit 1
fi
echo "android-on-linux: $(basename "$lib") linked from $(echo "$objects" | wc -l) objects, no backend-layer object among them"

"$gnu-gcc" -std=c11 -Wall -Wextra -Werror -o "$work/load_check" "$here/test/load_check.c" -ldl
qemu-aarch64 -L "/usr/$gnu" -E "LD_LIBRARY_PATH=$work/stubs" "$work/load_check" "$lib" | sed "s|$build/||"
