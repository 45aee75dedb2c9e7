# Sourced by the integration's shell scripts (and scripts/mobile-libs.sh): which family of the
# release table (releases.txt, read through scripts/release-table.sh) serves a whisper.rn release.
# Works with macOS's bash 3.2.
#   wsp_release PACKAGE_DIR|RELEASE   sets wsp_version (e.g. 0.7.3), wsp_releases (the family's
#                                     releases: 0.7.3 0.7.4), wsp_build (its newest, which the
#                                     tests build against and build folders are named after:
#                                     0.7.4), wsp_feature (its cargo feature, empty for the default
#                                     family) and wsp_symbols (its functions' list under ctests/);
#                                     fails, naming the served releases, when no family serves it
#   wsp_served                        the served releases, comma-separated
#   wsp_builds                        each family's newest release, one a line
#   wsp_cargo_dir ROOT RELEASE        cargo's --target-dir for RELEASE's family (as the project's
#                                     CMake has it: ROOT/target for the default family, else a
#                                     folder per family)
wsp_release_table="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/release-table.sh"

wsp_served() {
    "$wsp_release_table" releases | awk '{ s = s (NR == 1 ? "" : ", ") $0 } END { print s }'
}

wsp_builds() {
    "$wsp_release_table" newest
}

wsp_release() {
    if [ -d "$1" ]; then
        if [ ! -f "$1/package.json" ]; then
            echo "wsp-ggml-backend: $1/package.json not found (is $1 whisper.rn's package?)" >&2
            return 1
        fi
        # the package's own version: the first "version" key (package.json puts it near the top)
        wsp_version=$(sed -n 's/^[[:space:]]*"version"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$1/package.json" \
            | awk 'NR == 1')
    elif [ "${1#*/}" != "$1" ]; then
        echo "wsp-ggml-backend: $1 is not a folder (whisper.rn's package, or a release number)" >&2
        return 1
    else
        wsp_version=$1
    fi
    if ! wsp_releases=$("$wsp_release_table" fact "$wsp_version" releases 2>/dev/null); then
        echo "wsp-ggml-backend: whisper.rn $wsp_version is not served; served releases: $(wsp_served)" >&2
        return 1
    fi
    wsp_build=${wsp_releases##* }
    wsp_feature=$("$wsp_release_table" fact "$wsp_version" feature)
    wsp_symbols=$("$wsp_release_table" fact "$wsp_version" symbols)
}

wsp_cargo_dir() {
    local wsp_version wsp_releases wsp_build wsp_feature wsp_symbols
    if wsp_release "$2" && [ -n "$wsp_feature" ]; then
        echo "$1/target/whisper-rn-$wsp_build"
    else
        echo "$1/target"
    fi
}
