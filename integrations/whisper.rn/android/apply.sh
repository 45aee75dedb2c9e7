#!/usr/bin/env bash
# Makes whisper.rn's Android build use wsp-ggml-backend: appends one include() of
# wsp-ggml-backend.cmake (beside this script) to <whisper.rn>/android/src/main/CMakeLists.txt,
# e.g. node_modules/whisper.rn. The package's release must be one the release table (releases.txt)
# serves (else it stops, naming them; the include checks it again at every configure step, as
# after an upgrade). Idempotent.
#   integrations/whisper.rn/android/apply.sh path/to/whisper.rn
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 path/to/whisper.rn" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../release.sh
source "$here/../release.sh"
cmakelists="$1/android/src/main/CMakeLists.txt"
[ -f "$cmakelists" ] || { echo "apply.sh: $cmakelists not found (is $1 whisper.rn's package?)" >&2; exit 1; }
grep -q "ggml-backend.cpp" "$cmakelists" || { echo "apply.sh: $cmakelists does not build ggml-backend.cpp" >&2; exit 1; }
wsp_release "$1" || exit 1
line="include(\"$here/wsp-ggml-backend.cmake\")"
if ! grep -qF "$line" "$cmakelists"; then
    printf '\n# wsp-ggml-backend replaces the ggml backend layer (ggml-backend*.cpp)\n%s\n' "$line" >> "$cmakelists"
fi
echo "apply.sh: whisper.rn $wsp_version (the family of $wsp_releases): $cmakelists includes $here/wsp-ggml-backend.cmake"
