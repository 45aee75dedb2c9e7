#!/usr/bin/env bash
# The release table (releases.txt) for scripts. A release is a whisper.rn version (0.7.4) or
# PACKAGE@VERSION (llama.rn@0.12.9).
#
#   scripts/release/release-table.sh fact RELEASE KEY   the values of KEY for the family serving RELEASE
#                                               (space-separated; exit 1 when no family does)
#   scripts/release/release-table.sh family RELEASE     the name of the family serving RELEASE
#   scripts/release/release-table.sh prefix RELEASE     the prefix RELEASE gives ggml's names (its family's,
#                                               else its package's)
#   scripts/release/release-table.sh package PACKAGE KEY  a fact of the package (prefix, podspec, ...;
#                                               empty for -)
#   scripts/release/release-table.sh releases [PACKAGE] every release of the package (whisper.rn by default)
#                                               some family serves, previews left out (the
#                                               releases apps are built with)
#   scripts/release/release-table.sh newest [--all|--apps|--previews]  each whisper.rn family's newest release
#                                               (the one its tests build against), in the table's
#                                               order; --all: then every other package's, as
#                                               PACKAGE@VERSION; --apps: then the other React
#                                               Native packages' (llama.rn's, not plain ggml's),
#                                               leaving out preview families; --previews:
#                                               their preview families' newest releases alone
#   scripts/release/release-table.sh packages           every package, one a line, in the table's order
#   scripts/release/release-table.sh capabilities       every capability some family has, one a line
#   scripts/release/release-table.sh families           every family, in the table's order
#   scripts/release/release-table.sh of FAMILY KEY      the values of a family's KEY (space-separated;
#                                               empty when it has none)
#   scripts/release/release-table.sh capability-texts   what each capability means, as the table's
#                                               comments say: NAME<tab>TEXT a line
set -euo pipefail
table="$(cd "$(dirname "$0")/../.." && pwd)/releases.txt"

# the family of package $1 serving version $2
family_of() {
    awk -v p="$1" -v r="$2" '
        !/^#/ && $2 == "package" { package[$1] = $3 }
        !/^#/ && $2 == "releases" && package[$1] == p { for (i = 3; i <= NF; i++) if ($i == r) { print $1; exit } }' "$table"
}

# "PACKAGE VERSION" of a release
split_release() {
    case "$1" in
        *@*) echo "${1%@*} ${1#*@}" ;;
        *) echo "whisper.rn $1" ;;
    esac
}

# each family's newest release, PACKAGE@VERSION for another package than whisper.rn: whisper.rn's
# alone, every package's (all), or the React Native packages' (apps: those with an Android build)
newest() {
    awk -v which="$1" '
        !/^#/ && $2 == "android_cmake" && $3 != "-" { app[$1] = 1 }
        !/^#/ && $2 == "package" { package[$1] = $3 }
        !/^#/ && $2 == "releases" { order[++n] = $1; newest[$1] = $NF }
        !/^#/ && $2 == "preview" && $3 == "yes" { preview[$1] = 1 }
        END {
            for (i = 1; i <= n; i++) {
                f = order[i]
                if (which == "previews") { if (app[package[f]] && preview[f]) print package[f] "@" newest[f] }
                else if (package[f] == "whisper.rn") print newest[f]
                else if (which == "all" || (which == "apps" && app[package[f]] && !preview[f])) print package[f] "@" newest[f]
            }
        }' "$table"
}

case "${1:-}" in
    fact)
        read -r package version < <(split_release "$2")
        family=$(family_of "$package" "$version")
        [ -n "$family" ] || { echo "release-table: no family serves $package '$version'" >&2; exit 1; }
        awk -v f="$family" -v k="$3" '!/^#/ && $1 == f && $2 == k { for (i = 3; i <= NF; i++) if ($i != "-") printf "%s%s", (n++ ? " " : ""), $i } END { print "" }' "$table"
        ;;
    family)
        read -r package version < <(split_release "$2")
        family=$(family_of "$package" "$version")
        [ -n "$family" ] || { echo "release-table: no family serves $package '$version'" >&2; exit 1; }
        echo "$family"
        ;;
    prefix)
        read -r package version < <(split_release "$2")
        family=$(family_of "$package" "$version")
        if [ -n "$family" ] && awk -v f="$family" '!/^#/ && $1 == f && $2 == "prefix" { found = 1 } END { exit !found }' "$table"; then
            "$0" of "$family" prefix
        else
            "$0" package "$package" prefix
        fi
        ;;
    package)
        awk -v p="$2" -v k="$3" '!/^#/ && $1 == p && $2 == k { v = $3; for (i = 4; i <= NF; i++) v = v " " $i; if (v != "-") print v; found = 1 }
            END { if (!found) { print "release-table: package " p " has no " k > "/dev/stderr"; exit 1 } }' "$table"
        ;;
    releases)
        awk -v p="${2:-whisper.rn}" '!/^#/ && $2 == "package" { package[$1] = $3 }
             !/^#/ && $2 == "releases" && package[$1] == p { if (!($1 in served)) order[++n] = $1; for (i = 3; i <= NF; i++) served[$1] = served[$1] " " $i }
             !/^#/ && $2 == "preview" && $3 == "yes" { preview[$1] = 1 }
             END { for (i = 1; i <= n; i++) if (!preview[order[i]]) { k = split(served[order[i]], w, " "); for (j = 1; j <= k; j++) print w[j] } }' "$table"
        ;;
    newest)
        case "${2:-}" in
            --all) newest all ;;
            --apps) newest apps ;;
            --previews) newest previews ;;
            *) newest "" ;;
        esac
        ;;
    packages)
        awk '!/^#/ && $2 == "prefix" { print $1 }' "$table"
        ;;
    capabilities)
        awk '!/^#/ && $2 == "capabilities" { for (i = 3; i <= NF; i++) if ($i != "-") print $i }' "$table" | LC_ALL=C sort -u
        ;;
    families)
        awk '!/^#/ && $2 == "releases" { print $1 }' "$table"
        ;;
    of)
        awk -v f="$2" -v k="$3" '!/^#/ && $1 == f && $2 == k { for (i = 3; i <= NF; i++) if ($i != "-") printf "%s%s", (n++ ? " " : ""), $i } END { print "" }' "$table"
        ;;
    capability-texts)
        # "#     NAME  TEXT" opens a capability's text, deeper-indented comment lines continue it,
        # and a key's line ("#   KEY ...") ends the list
        awk '/^#     [^ ]/ { if (name) print name "\t" text; name = $2; text = substr($0, 7 + length($2)); sub(/^ +/, "", text); next }
             /^#      / && name { line = $0; sub(/^# +/, "", line); text = text " " line; next }
             /^#   [^ ]/ && name { print name "\t" text; name = "" }
             END { if (name) print name "\t" text }' "$table"
        ;;
    *)
        echo "usage: scripts/release/release-table.sh fact RELEASE KEY | family RELEASE | prefix RELEASE | package PACKAGE KEY | releases [PACKAGE] | newest [--all|--apps|--previews] | packages | capabilities | families | of FAMILY KEY | capability-texts" >&2
        exit 2
        ;;
esac
