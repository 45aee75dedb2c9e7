#!/usr/bin/env bash
# The release table (releases.txt) for scripts.
#
#   scripts/release-table.sh fact RELEASE KEY   the values of KEY for the family serving RELEASE
#                                               (space-separated; exit 1 when no family does)
#   scripts/release-table.sh releases           every release some family serves
#   scripts/release-table.sh newest             each family's newest release (the one its tests
#                                               build against), in the table's order
set -euo pipefail
table="$(cd "$(dirname "$0")/.." && pwd)/releases.txt"

# the family serving $1
family_of() {
    awk -v r="$1" '!/^#/ && $2 == "releases" { for (i = 3; i <= NF; i++) if ($i == r) { print $1; exit } }' "$table"
}

case "${1:-}" in
    fact)
        family=$(family_of "$2")
        [ -n "$family" ] || { echo "release-table: no family serves whisper.rn '$2'" >&2; exit 1; }
        awk -v f="$family" -v k="$3" '!/^#/ && $1 == f && $2 == k { for (i = 3; i <= NF; i++) if ($i != "-") printf "%s%s", (n++ ? " " : ""), $i } END { print "" }' "$table"
        ;;
    releases)
        awk '!/^#/ && $2 == "releases" { for (i = 3; i <= NF; i++) print $i }' "$table"
        ;;
    newest)
        awk '!/^#/ && $2 == "releases" { print $NF }' "$table"
        ;;
    *)
        echo "usage: scripts/release-table.sh fact RELEASE KEY | releases | newest" >&2
        exit 2
        ;;
esac
