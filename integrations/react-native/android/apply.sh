#!/usr/bin/env bash
# Makes whisper.rn's or llama.rn's Android build use wsp-ggml-backend: appends one include() of
# wsp-ggml-backend.cmake (beside this script) to the package's CMakeLists that builds the backend
# layer (the release table's android_cmake: whisper.rn's android/src/main/CMakeLists.txt,
# llama.rn's android/src/main/rnllama/CMakeLists.txt), e.g. in node_modules/whisper.rn. Where the
# package builds its C++ only under a Gradle property (llama.rn's rnllamaBuildFromSource; else
# it links prebuilt libraries with its own layer inside), the property's default in the package's
# android/build.gradle becomes true: the source build, which the include changes, is the one
# Gradle runs, unless the app sets the property to false (then nothing of this library is used).
# The package's release must be one the release table (releases.txt) serves (else it stops,
# naming them; the include checks it again at every configure step, as after an upgrade).
# Idempotent.
#   integrations/react-native/android/apply.sh path/to/package
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 path/to/whisper.rn|path/to/llama.rn" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../release.sh
source "$here/../release.sh"
wsp_release "$1" || exit 1
cmakelists="$1/$wsp_android_cmake"
[ -f "$cmakelists" ] || { echo "apply.sh: $cmakelists not found (is $1 $wsp_package's package?)" >&2; exit 1; }
grep -q "ggml-backend.cpp" "$cmakelists" || { echo "apply.sh: $cmakelists does not build ggml-backend.cpp" >&2; exit 1; }
# A file is changed by writing a new one in its place, never in place: a package manager's store
# may share the package's files between apps as hard links (pnpm).
line="include(\"$here/wsp-ggml-backend.cmake\")"
if ! grep -qF "$line" "$cmakelists"; then
    { cat "$cmakelists"; printf '\n# wsp-ggml-backend replaces the ggml backend layer (ggml-backend*.cpp)\n%s\n' "$line"; } \
        > "$cmakelists.wsp-new"
    mv "$cmakelists.wsp-new" "$cmakelists"
fi
echo "apply.sh: $wsp_package $wsp_version (the family of $wsp_releases): $cmakelists includes $here/wsp-ggml-backend.cmake"

if [ "$wsp_force_source" = yes ] && [ -n "$wsp_gradle_switch" ]; then
    gradle="$1/android/build.gradle"
    default_off="findProperty(\"$wsp_gradle_switch\") ?: \"false\""
    default_on="findProperty(\"$wsp_gradle_switch\") ?: \"true\""
    if grep -qF "$default_off" "$gradle" 2>/dev/null; then
        sed "s/$(printf '%s' "$default_off" | sed 's/[][\.*^$/]/\\&/g')/$default_on/" "$gradle" > "$gradle.wsp-new"
        mv "$gradle.wsp-new" "$gradle"
    fi
    grep -qF "$default_on" "$gradle" 2>/dev/null || {
        echo "apply.sh: $gradle does not read $wsp_gradle_switch as expected: set $wsp_gradle_switch=true in the app's android/gradle.properties" >&2
        exit 1
    }
    echo "apply.sh: $gradle builds $wsp_package's C++ from source unless the app sets $wsp_gradle_switch=false"
fi
