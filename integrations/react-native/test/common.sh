# Sourced by the integration's tests: the repository root, release.sh, and where
# scripts/fetch/fetch-reference.sh unpacks a release.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
here="$root/integrations/react-native"
# shellcheck source=../release.sh
source "$here/release.sh"

# reference RELEASE: fetches RELEASE (a whisper.rn version, or PACKAGE@VERSION) from npm (when
# not there yet) and prints its folder
reference() {
    "$root/scripts/fetch/fetch-reference.sh" "$1"
    case "$1" in
        0.4.3) echo "$root/third_party/whisper.rn" ;;
        *@*) echo "$root/third_party/${1/@/-}" ;;
        *) echo "$root/third_party/whisper.rn-$1" ;;
    esac
}
