#!/usr/bin/env bash
# Makes whisper.rn's or llama.rn's Android build use wsp-ggml-backend while the npm package
# wsp-ggml-backend is installed: a block at the end of the package's CMakeLists that builds the
# backend layer (the release table's android_cmake: whisper.rn's android/src/main/CMakeLists.txt,
# llama.rn's android/src/main/rnllama/CMakeLists.txt) includes android/wsp-ggml-backend.cmake
# from the wsp-ggml-backend that a node_modules folder above the CMakeLists holds (as Node
# resolves a package: nothing absolute is written, so a moved app or a moved pnpm store still
# builds), and does nothing once none does (the package uninstalled: the package builds its own
# layer, as npm gave it). Where the package builds its C++ only under a Gradle property (llama.rn's
# rnllamaBuildFromSource; else it links prebuilt libraries with its own layer inside), the
# property's default in its android/build.gradle becomes "true while wsp-ggml-backend is
# installed", found the same way; the app's property still wins.
# The package's release must be one the release table (releases.txt) serves (else it stops,
# naming them; the included file checks it again at every configure step, as after an upgrade).
# The blocks written earlier, by any version of the scripts, are replaced: the files are the
# same after any number of runs.
#   integrations/react-native/android/apply.sh path/to/package
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 path/to/whisper.rn|path/to/llama.rn" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../release.sh
source "$here/../release.sh"
wsp_release "$1" || exit 1
cmakelists="$1/$wsp_android_cmake"
[ -f "$cmakelists" ] || { echo "apply.sh: $cmakelists not found (is $1 $wsp_package's package?)" >&2; exit 1; }
[ -f "$1/$wsp_layer/ggml-backend.cpp" ] || { echo "apply.sh: $1/$wsp_layer has no ggml-backend.cpp (is $1 $wsp_package $wsp_version's package?)" >&2; exit 1; }
included=node_modules/wsp-ggml-backend/integrations/react-native/android/wsp-ggml-backend.cmake
{
    wsp_without_blocks "$cmakelists"
    cat <<CMAKE

# wsp-ggml-backend begin: while the npm package wsp-ggml-backend is installed (a node_modules
# folder above this one holds it), its Rust library replaces the ggml backend layer
# (ggml-backend*.cpp); once it is gone, this does nothing. Written by its android/apply.sh,
# replaced when it applies itself again.
set(_wsp_above "\${CMAKE_CURRENT_LIST_DIR}")
while(NOT EXISTS "\${_wsp_above}/$included")
    get_filename_component(_wsp_parent "\${_wsp_above}" DIRECTORY)
    if(_wsp_parent STREQUAL _wsp_above)
        break()
    endif()
    set(_wsp_above "\${_wsp_parent}")
endwhile()
if(EXISTS "\${_wsp_above}/$included")
    include("\${_wsp_above}/$included")
endif()
# wsp-ggml-backend end
CMAKE
} | wsp_write "$cmakelists"
echo "apply.sh: $wsp_package $wsp_version (the family of $wsp_releases): $cmakelists includes wsp-ggml-backend.cmake while the package is installed"
# what the app's build will link (the npm package's prebuilt archives: scripts/release/npm-prebuilt.sh)
prebuilt="$here/../../../prebuilt/$(wsp_prebuilt_dir "$wsp_build")"
if [ -d "$prebuilt" ]; then
    echo "apply.sh: Android: the build links the package's prebuilt library ($(cd "$prebuilt" && ls -d *-android* | paste -sd ' ')): no Rust needed"
else
    echo "apply.sh: Android: each ABI's configure step builds the library with cargo (Rust needed: rustup target add aarch64-linux-android armv7-linux-androideabi x86_64-linux-android i686-linux-android)"
fi

if [ -n "$wsp_gradle_switch" ]; then
    gradle="$1/android/build.gradle"
    default="findProperty(\"$wsp_gradle_switch\") ?: \"false\""
    ours="findProperty(\"$wsp_gradle_switch\") ?: wspGgmlBackendInstalled.toString()"
    grep -qF "$default" "$gradle" 2>/dev/null || grep -qF "$ours" "$gradle" 2>/dev/null || {
        echo "apply.sh: $gradle does not read $wsp_gradle_switch as expected: set $wsp_gradle_switch=true in the app's android/gradle.properties" >&2
        exit 1
    }
    # the block goes just before the line that reads the property
    wsp_without_blocks "$gradle" | awk -v default="$default" -v ours="$ours" '
        index($0, default) || index($0, ours) {
            print "// wsp-ggml-backend begin: while the npm package wsp-ggml-backend is installed (a node_modules"
            print "// folder above this one holds it), the C++ is built from source, with its backend layer;"
            print "// once it is gone, this does nothing. Written by its android/apply.sh."
            print "def wspGgmlBackendInstalled = { File dir ->"
            print "    while (dir != null && !new File(dir, \"node_modules/wsp-ggml-backend/package.json\").exists()) { dir = dir.parentFile }"
            print "    dir != null"
            print "}(project.projectDir)"
            print "// wsp-ggml-backend end"
            i = index($0, default)
            if (i) $0 = substr($0, 1, i - 1) ours substr($0, i + length(default))
        }
        { print }' | wsp_write "$gradle"
    echo "apply.sh: $gradle builds $wsp_package's C++ from source while wsp-ggml-backend is installed, unless the app sets $wsp_gradle_switch=false"
fi
