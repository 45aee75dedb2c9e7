#!/usr/bin/env bash
# Makes whisper.rn's Android build use wsp-ggml-backend: appends one include() of
# wsp-ggml-backend.cmake (beside this script) to <whisper.rn>/android/src/main/CMakeLists.txt,
# e.g. node_modules/whisper.rn. Idempotent.
#   integrations/whisper.rn/android/apply.sh path/to/whisper.rn
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 path/to/whisper.rn" >&2; exit 2; }
cmakelists="$1/android/src/main/CMakeLists.txt"
[ -f "$cmakelists" ] || { echo "apply.sh: $cmakelists not found (is $1 whisper.rn's package?)" >&2; exit 1; }
grep -q "ggml-backend.cpp" "$cmakelists" || { echo "apply.sh: $cmakelists does not build ggml-backend.cpp" >&2; exit 1; }
snippet="$(cd "$(dirname "$0")" && pwd)/wsp-ggml-backend.cmake"
line="include(\"$snippet\")"
if ! grep -qF "$line" "$cmakelists"; then
    printf '\n# wsp-ggml-backend replaces ggml-backend.cpp and ggml-backend-reg.cpp\n%s\n' "$line" >> "$cmakelists"
fi
echo "apply.sh: $cmakelists includes $snippet"
