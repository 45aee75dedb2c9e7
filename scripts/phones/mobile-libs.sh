#!/usr/bin/env bash
# Builds the static library for the phones whisper.rn and llama.rn ship for (Android's four ABIs,
# iOS device, simulator), for each family of the release table, releases.txt (built as its newest
# release: whisper.rn 0.4.3, 0.5.2, 0.5.4, 0.5.5, 0.6.0, 0.7.4, llama.rn 0.12.4, 0.12.5, 0.12.6,
# 0.12.9 today; each with its cargo feature, in its own target dir), and checks that each archive
# defines exactly the family's functions (its `symbols` list under ctests/, with the package's
# prefix).
# Needs neither the NDK nor Xcode: a staticlib is not linked, so only the Rust target's standard
# library is needed (the cdylib would need the platform's linker). Apps link the archive into
# their own shared library or framework (integrations/react-native/).
#
#   scripts/phones/mobile-libs.sh [--release RELEASE]... [TARGET...]   (default: every family, all seven targets)
#   scripts/phones/mobile-libs.sh --check ARCHIVE RELEASE               only check a built archive
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
source integrations/react-native/release.sh

# llvm-nm reads Mach-O (iOS) as well as ELF archives; binutils' nm reads only ELF.
if ! command -v llvm-nm >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends llvm >/dev/null
fi

# check ARCHIVE LIST PREFIX: the archive defines exactly the functions of ctests/LIST (written with
# whisper.rn's prefix) with the package's PREFIX; prints the verdict
check() {
    local list="ctests/$2" prefix=$3 spec defined missing extra
    spec=$(sed "s/^wsp_/$prefix/" "$list" | sort -u)
    # Defined global text/data symbols of the ggml API (Mach-O names carry a leading underscore),
    # as ctests/abi/symbols.cmake reads them from the host's libraries. An older llvm-nm cannot read
    # the LLVM bitcode that some of Rust's own standard library members carry and exits 1; the
    # library's own objects are plain machine code, and a symbol it cannot read shows as missing.
    defined=$({ llvm-nm --defined-only "$1" 2>/dev/null || true; } \
        | awk -v p="${prefix}ggml" '$2 ~ /^[TWDBR]$/ { name = $3; sub(/^_/, "", name); if (index(name, p) == 1) print name }' | sort -u)
    missing=$(comm -23 <(echo "$spec") <(echo "$defined"))
    extra=$(comm -13 <(echo "$spec") <(echo "$defined"))
    if [ -n "$missing" ] || [ -n "$extra" ]; then
        echo "FAILED: missing [${missing//$'\n'/ }] extra [${extra//$'\n'/ }]"
        return 1
    fi
    echo "$1 ($(du -h "$1" | cut -f1)) defines the $(echo "$spec" | wc -l) functions of $list and no other ${prefix}ggml symbol"
}

if [ "${1:-}" = --check ]; then
    [ $# -eq 3 ] || { echo "usage: $0 --check ARCHIVE RELEASE" >&2; exit 2; }
    wsp_release "$3"
    check "$2" "$wsp_symbols" "$wsp_prefix"
    exit
fi

releases=()
while [ "${1:-}" = --release ]; do
    [ $# -ge 2 ] || { echo "usage: $0 [--release RELEASE]... [TARGET...]" >&2; exit 2; }
    releases+=("$2")
    shift 2
done
[ ${#releases[@]} -gt 0 ] || while read -r build; do releases+=("$build"); done < <(scripts/release/release-table.sh newest --apps)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(aarch64-linux-android armv7-linux-androideabi x86_64-linux-android i686-linux-android
             aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios)
fi

# build_family RELEASE: the family's archive for every target, one after the other (they share
# the family's target dir, which cargo locks); prints each verdict, returns 1 if any failed
build_family() {
    local release=$1 dir target what t0 verdict failed=0
    wsp_release "$release"
    dir=$(wsp_cargo_dir "$root" "$wsp_build")
    for target in "${targets[@]}"; do
        what="mobile[$wsp_build $target]"
        if ! rustup target list --installed | grep -x "$target" >/dev/null && ! rustup target add "$target" >/dev/null 2>&1; then
            echo "$what: FAILED: rustup cannot install the target's standard library"
            failed=1
            continue
        fi
        t0=$SECONDS
        if ! cargo rustc --quiet --release --lib --target "$target" --crate-type staticlib \
            ${wsp_feature:+--features "$wsp_feature"} --target-dir "$dir" 2>&1; then
            echo "$what: FAILED: cargo rustc"
            failed=1
            continue
        fi
        if ! verdict=$(check "$dir/$target/release/libwsp_ggml_backend.a" "$wsp_symbols" "$wsp_prefix"); then
            echo "$what: $verdict"
            failed=1
            continue
        fi
        echo "$what: ${verdict#"$root/"} ($((SECONDS - t0)) s)"
    done
    return "$failed"
}

# The families side by side, as many at once as there are cores: the crate is one codegen unit,
# so each build keeps one core busy. Each family's lines are printed when it is done.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
for i in "${!releases[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
    ( status=0; build_family "${releases[$i]}" > "$logs/$i" 2>&1 || status=$?; echo "$status" > "$logs/$i.status" ) &
done
wait
failed=()
for i in "${!releases[@]}"; do
    cat "$logs/$i"
    [ "$(cat "$logs/$i.status")" = 0 ] || failed+=("${releases[$i]}")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "mobile: failed for ${failed[*]}" >&2
    exit 1
fi
