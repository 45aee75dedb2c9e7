#!/usr/bin/env bash
# Builds the static library for the phones whisper.rn ships for (Android's four ABIs, iOS device,
# simulator) and checks that each defines exactly the spec's functions (ctests/symbols.txt).
# Needs neither the NDK nor Xcode: a staticlib is not linked, so only the Rust target's standard
# library is needed (the cdylib would need the platform's linker). Apps link the archive into
# their own shared library or framework (integrations/whisper.rn/).
#
#   scripts/mobile-libs.sh [TARGET...]    (default: all seven)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(aarch64-linux-android armv7-linux-androideabi x86_64-linux-android i686-linux-android
             aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios)
fi

# llvm-nm reads Mach-O (iOS) as well as ELF archives; binutils' nm reads only ELF.
if ! command -v llvm-nm >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends llvm >/dev/null
fi

spec=$(sort -u ctests/symbols.txt)
spec_count=$(echo "$spec" | wc -l)
failed=()
for target in "${targets[@]}"; do
    if ! rustup target list --installed | grep -qx "$target" && ! rustup target add "$target" >/dev/null 2>&1; then
        echo "mobile[$target]: FAILED: rustup cannot install the target's standard library" >&2
        failed+=("$target")
        continue
    fi
    t0=$SECONDS
    cargo rustc --quiet --release --lib --target "$target" --crate-type staticlib
    lib="target/$target/release/libwsp_ggml_backend.a"
    # Defined global text/data symbols of the ggml API (Mach-O names carry a leading underscore),
    # as tests/conformance.rs reads them from the host's libraries. An older llvm-nm cannot read
    # the LLVM bitcode that some of Rust's own standard library members carry and exits 1; the
    # library's own objects are plain machine code, and a symbol it cannot read shows as missing.
    defined=$({ llvm-nm --defined-only "$lib" 2>/dev/null || true; } \
        | awk '$2 ~ /^[TWDBR]$/ { name = $3; sub(/^_/, "", name); if (name ~ /^wsp_ggml/) print name }' | sort -u)
    missing=$(comm -23 <(echo "$spec") <(echo "$defined"))
    extra=$(comm -13 <(echo "$spec") <(echo "$defined"))
    if [ -n "$missing" ] || [ -n "$extra" ]; then
        echo "mobile[$target]: FAILED: missing [${missing//$'\n'/ }] extra [${extra//$'\n'/ }]" >&2
        failed+=("$target")
        continue
    fi
    echo "mobile[$target]: $lib ($(du -h "$lib" | cut -f1)) defines all $spec_count spec functions and no other wsp_ggml symbol ($((SECONDS - t0)) s)"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "mobile: failed for ${failed[*]}" >&2
    exit 1
fi
