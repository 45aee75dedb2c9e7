#!/usr/bin/env bash
# Tests android/ as far as a Linux machine without the NDK can: whisper.rn 0.4.3's own
# android/src/main/CMakeLists.txt, changed by android/apply.sh, is built for arm64 with Debian's
# aarch64 cross compiler (cmake/linux-cross.cmake) in place of the NDK's, with
# ANDROID_ABI=arm64-v8a. Its arm64 library (whisper.rn's ARM kernels, -march=armv8.2-a+fp16) must
# build without ggml-backend.cpp and ggml-backend-reg.cpp, linked with this library built by cargo
# for aarch64; loaded under qemu, it must compute a graph through the scheduler.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
here=integrations/whisper.rn

scripts/cross.sh --install aarch64-unknown-linux-gnu
scripts/fetch-reference.sh
gnu=aarch64-linux-gnu
work="$root/build/integration-android"
rm -rf "$work"
mkdir -p "$work/pkg/android/src/main" "$work/stubs"
# The package's layout: android/src/main/CMakeLists.txt reaches the sources as ../../../cpp.
ln -s "$root/third_party/whisper.rn/cpp" "$work/pkg/cpp"
cp third_party/whisper.rn/android/src/main/CMakeLists.txt "$work/pkg/android/src/main/"
cp "$here/test/backend_check.cpp" "$work/pkg/android/src/main/jni.cpp"
"$here/android/apply.sh" "$work/pkg"
"$here/android/apply.sh" "$work/pkg" >/dev/null  # twice: adds the line once
[ "$(grep -c wsp-ggml-backend.cmake "$work/pkg/android/src/main/CMakeLists.txt")" -eq 1 ]

# The NDK's liblog and libandroid, which the CMakeLists links: empty stand-ins (whisper.rn calls
# them only when __ANDROID__ is defined). _GNU_SOURCE: glibc's scheduling and CPU-set
# declarations, which Android's libc makes visible by default; <cmath>: rn-whisper.cpp gets it
# through the NDK's libc++ headers, not through libstdc++'s.
for name in log android; do
    "$gnu-gcc" -shared -o "$work/stubs/lib$name.so" -x c /dev/null
done
cmake -S "$work/pkg/android/src/main" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/linux-cross.cmake" -DWSP_CROSS_GNU=$gnu -DANDROID_ABI=arm64-v8a \
    -DLOG_LIB="$work/stubs/liblog.so" -DCMAKE_SHARED_LINKER_FLAGS="-L$work/stubs" -Wno-dev \
    -DCMAKE_C_FLAGS=-D_GNU_SOURCE "-DCMAKE_CXX_FLAGS=-D_GNU_SOURCE -include cmath" \
    | grep "wsp-ggml-backend"
cmake --build "$work/build" -j 2 --target rnwhisper_v8fp16_va_2 >/dev/null
lib="$work/build/librnwhisper_v8fp16_va_2.so"

compiled=$(find "$work/build" -name '*.o' | wc -l)
if find "$work/build" -name 'ggml-backend*.cpp.o' | grep .; then
    echo "android-on-linux: whisper.rn's backend layer was still compiled" >&2
    exit 1
fi
echo "android-on-linux: $(basename "$lib") built from $compiled objects, none of them ggml-backend.cpp or ggml-backend-reg.cpp"

"$gnu-gcc" -std=c11 -Wall -Wextra -Werror -o "$work/load_check" "$here/test/load_check.c" -ldl
qemu-aarch64 -L "/usr/$gnu" -E "LD_LIBRARY_PATH=$work/stubs" "$work/load_check" "$lib" | sed "s|$work/build/||"
