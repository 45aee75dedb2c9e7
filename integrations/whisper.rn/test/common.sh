# Sourced by the integration's tests: the repository root, release.sh, and where
# scripts/fetch-reference.sh unpacks a whisper.rn release.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
here="$root/integrations/whisper.rn"
# shellcheck source=../release.sh
source "$here/release.sh"

# reference RELEASE: fetches whisper.rn RELEASE from npm (when not there yet) and prints its folder
reference() {
    "$root/scripts/fetch-reference.sh" "$1"
    if [ "$1" = 0.4.3 ]; then
        echo "$root/third_party/whisper.rn"
    else
        echo "$root/third_party/whisper.rn-$1"
    fi
}
