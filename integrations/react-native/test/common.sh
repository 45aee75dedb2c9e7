# Sourced by the integration's tests: the repository root, release.sh, and where
# scripts/fetch/fetch-reference.sh unpacks a release.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
here="$root/integrations/react-native"
# shellcheck source=../release.sh
source "$here/release.sh"

# reference RELEASE: fetches RELEASE (a whisper.rn version, or PACKAGE@VERSION) from npm (when
# not there yet) and prints the folder of its package's files: what the fetch unpacks (cpp/, the
# Android build, the podspec), or the whole package where it keeps it (package/: a layer outside
# cpp/, in a vendored llama.cpp)
reference() {
    local folder
    "$root/scripts/fetch/fetch-reference.sh" "$1"
    case "$1" in
        0.4.3) folder="$root/third_party/whisper.rn" ;;
        *@*) folder="$root/third_party/${1/@/-}" ;;
        *) folder="$root/third_party/whisper.rn-$1" ;;
    esac
    if [ -d "$folder/package" ]; then folder="$folder/package"; fi
    echo "$folder"
}
