# Sourced by the integration's shell scripts (and scripts/phones/mobile-libs.sh): which package an app's
# folder is (whisper.rn or llama.rn), and which family of the release table (releases.txt, read
# through scripts/release/release-table.sh) serves its release, and how the scripts write their blocks
# into the package's files. Works with macOS's bash 3.2.
#   wsp_release PACKAGE_DIR|RELEASE   RELEASE: a whisper.rn version (0.7.3) or PACKAGE@VERSION
#                                     (llama.rn@0.12.9). Sets wsp_package (whisper.rn),
#                                     wsp_version (0.7.3), wsp_releases (the family's releases:
#                                     0.7.3 0.7.4), wsp_build (its newest, which the tests build
#                                     against and build folders are named after: 0.7.4, or
#                                     llama.rn@0.12.9 for another package), wsp_feature (its cargo
#                                     feature, empty for the default family), wsp_symbols (its
#                                     functions' list under ctests/), wsp_layer (the package's
#                                     folder holding its layer: cpp, or from llama.rn 0.13
#                                     vendor/llama.cpp/ggml/src) and the package's facts:
#                                     wsp_android_cmake, wsp_libraries, wsp_podspec,
#                                     wsp_from_source, wsp_gradle_switch, wsp_ios_builtins,
#                                     wsp_disable_metal, wsp_android_sets; fails, naming the
#                                     served releases, when no family serves it (the package's
#                                     facts set even then)
#   wsp_served PACKAGE                the package's served releases, comma-separated
#   wsp_prebuilt_dir BUILD            the folder, in the npm package's prebuilt/, of the libraries
#                                     built for the family whose newest release is BUILD (as
#                                     wsp_build names it): PACKAGE-VERSION (whisper.rn-0.7.4;
#                                     android/wsp-ggml-backend.cmake names it likewise)
#   wsp_without_blocks FILE           FILE without the scripts' blocks
#   wsp_write FILE                    standard input as FILE's content, written only if it changed
#   wsp_cargo_dir ROOT RELEASE        cargo's --target-dir for RELEASE's family (as the project's
#                                     CMake has it: ROOT/target for the default family, else a
#                                     folder per family)
wsp_release_table="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/release/release-table.sh"

wsp_served() {
    "$wsp_release_table" releases "$1" | awk '{ s = s (NR == 1 ? "" : ", ") $0 } END { print s }'
}

# wsp_json_string FILE KEY: the first "KEY": "value" of a package.json (the package's own name and
# version come first)
wsp_json_string() {
    sed -n "s/^[[:space:]]*\"$2\"[[:space:]]*:[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$1" | awk 'NR == 1'
}

wsp_release() {
    local release
    if [ -d "$1" ]; then
        if [ ! -f "$1/package.json" ]; then
            echo "wsp-ggml-backend: $1/package.json not found (is $1 whisper.rn's or llama.rn's package?)" >&2
            return 1
        fi
        wsp_package=$(wsp_json_string "$1/package.json" name)
        wsp_version=$(wsp_json_string "$1/package.json" version)
    elif [ "${1#*/}" != "$1" ]; then
        echo "wsp-ggml-backend: $1 is not a folder (whisper.rn's or llama.rn's package, or a release)" >&2
        return 1
    else
        case "$1" in
            *@*) wsp_package=${1%@*} wsp_version=${1#*@} ;;
            *) wsp_package=whisper.rn wsp_version=$1 ;;
        esac
    fi
    if ! wsp_prefix=$("$wsp_release_table" package "$wsp_package" prefix 2>/dev/null); then
        echo "wsp-ggml-backend: $wsp_package is neither whisper.rn nor llama.rn" >&2
        return 1
    fi
    # the package's facts (set for a release no family serves too)
    wsp_android_cmake=$("$wsp_release_table" package "$wsp_package" android_cmake)
    wsp_libraries=$("$wsp_release_table" package "$wsp_package" libraries)
    wsp_podspec=$("$wsp_release_table" package "$wsp_package" podspec)
    wsp_from_source=$("$wsp_release_table" package "$wsp_package" from_source)
    wsp_gradle_switch=$("$wsp_release_table" package "$wsp_package" gradle_switch)
    wsp_ios_builtins=$("$wsp_release_table" package "$wsp_package" ios_builtins)
    wsp_disable_metal=$("$wsp_release_table" package "$wsp_package" disable_metal)
    wsp_android_sets=$("$wsp_release_table" package "$wsp_package" android_sets)
    release=$wsp_package@$wsp_version
    if ! wsp_releases=$("$wsp_release_table" fact "$release" releases 2>/dev/null); then
        echo "wsp-ggml-backend: $wsp_package $wsp_version is not served; served releases: $(wsp_served "$wsp_package")" >&2
        return 1
    fi
    wsp_build=${wsp_releases##* }
    if [ "$wsp_package" != whisper.rn ]; then wsp_build=$wsp_package@$wsp_build; fi
    wsp_feature=$("$wsp_release_table" fact "$release" feature)
    wsp_symbols=$("$wsp_release_table" fact "$release" symbols)
    # the family's prefix where it has its own (llama.rn 0.13 has none)
    wsp_prefix=$("$wsp_release_table" prefix "$release")
    wsp_layer=$("$wsp_release_table" fact "$release" layer)
    wsp_layer=${wsp_layer:-cpp}
}

wsp_prebuilt_dir() {
    case "$1" in
        *@*) echo "${1%@*}-${1#*@}" ;;
        *) echo "whisper.rn-$1" ;;
    esac
}

wsp_cargo_dir() {
    local wsp_package wsp_version wsp_prefix wsp_releases wsp_build wsp_feature wsp_symbols wsp_layer wsp_android_cmake \
        wsp_libraries wsp_podspec wsp_from_source wsp_gradle_switch wsp_ios_builtins wsp_disable_metal wsp_android_sets
    if wsp_release "$2" && [ -n "$wsp_feature" ]; then
        echo "$1/target/$(echo "$wsp_package" | tr . -)-${wsp_build#*@}"
    else
        echo "$1/target"
    fi
}

# wsp_without_blocks FILE: FILE without the blocks the scripts wrote into it (from a comment line
# "wsp-ggml-backend begin" to one "wsp-ggml-backend end", # or // comments) nor the blank lines
# just before each: what the package's file was before they were applied
wsp_without_blocks() {
    awk '
        /^[[:space:]]*(#|\/\/) wsp-ggml-backend begin/ { inside = 1; blank = 0; next }
        inside { if ($0 ~ /^[[:space:]]*(#|\/\/) wsp-ggml-backend end/) inside = 0; next }
        /^[[:space:]]*$/ { blank++; next }
        { for (; blank > 0; blank--) print ""; print }
        END { if (!inside) for (; blank > 0; blank--) print "" }' "$1"
}

# wsp_write FILE: standard input as FILE's new content, when it differs (a new file in FILE's
# place, never written in place: a package manager's store may share FILE as a hard link, pnpm's)
wsp_write() {
    cat > "$1.wsp-new"
    if cmp -s "$1.wsp-new" "$1"; then
        rm "$1.wsp-new"
    else
        mv "$1.wsp-new" "$1"
    fi
}
