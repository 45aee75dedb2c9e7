#!/usr/bin/env bash
# Fetch a whisper.rn release from npm (the reference backend layer and the ggml core the tests
# link against), check it against npm's published integrity, and unpack it into third_party/
# (ignored by git): cpp/, and the Android CMakeLists and the podspec that integrations/whisper.rn/
# adapts. Idempotent: does nothing when already there.
#
#   scripts/fetch-reference.sh [RELEASE]    RELEASE: any stable whisper.rn release with this backend
#   layer (0.4.3, the default; 0.5.1 to 0.5.5, 0.6.0, 0.7.3, 0.7.4), each pinned by its npm integrity
#   scripts/fetch-reference.sh --all        every one of them, side by side (most of the time is
#                                           npm's)
set -euo pipefail

# release  folder under third_party/  npm integrity of the tarball
RELEASES='
0.4.3 whisper.rn       sha512-isvW9AAtY73l7yvH5u9MzR8J1T4O1J8XXjbYZwiEjQaisoWW25gkiDgYeSK69NmY/RUuPNC+G8iJB76oKCQk5w==
0.5.5 whisper.rn-0.5.5 sha512-awFE+ImMtRdGhA+hjm3GEwnSvyEVP1sdhMb+MyCa5bVdoOCpaxrwVwXDo9U46Qwkhwml3PCFaauTsGmRkTyhdw==
0.5.4 whisper.rn-0.5.4 sha512-4G3MFnC/EQoUFqv1k6EahERI6W3vAgfau2uyLidq0/axZPuHC4ZMhPEtTYaGljUN8OzD2W8erLRm/sA3jR5FBQ==
0.7.4 whisper.rn-0.7.4 sha512-9MyWFoRmUWHDHLhjm4dZgZzxG2fFNuClOPE/Ne5KXlm0vSi4It5oS2xZi9WfPEfUGHcgPMiVviv9t18zC4BSNw==
0.7.3 whisper.rn-0.7.3 sha512-4N1KeXkdlkReX0UB4dFdORe0MRDBPYriUHWBgZnpuxE98lRnyCbqtcP21nwjytQbDzNCMjYFS+m1QxrsCDB9UQ==
0.6.0 whisper.rn-0.6.0 sha512-zuwIdiZzUYZDZSrGRBrM7kNknWWYCPT6BcGgmhTlZ5Z8k0QTtHRV/RxhmqrXZ8PAgh8FtUyrH3aQJptrsOHDDA==
0.5.1 whisper.rn-0.5.1 sha512-Inu2mcP8vH2yWfVatqAoyYnwhq1UrTx9dYbzCYLAg/7Y78qs65MPg1WNc7JJUBrekGEayu8B8MkxiAEoVrqVOA==
0.5.2 whisper.rn-0.5.2 sha512-728K/5ePGfIW8BbXlN8+zFn2D9qwgV5SElrRVllvYw2uDAQ91TIoPFOP2K89DiGLdsQbZ4WC79AVjA18nH9lHw==
0.5.3 whisper.rn-0.5.3 sha512-etgsRmwy9Rw8AAMX+ujo4kB6LQz+djHVCs9nFrqUYxfaEuyvEQXqrvxlP64UqQZbDhoWVeO/Pm9g/8f21eye1w==
'

VERSION=${1:-0.4.3}
if [ "$VERSION" = --all ]; then
    pids=()
    for release in $(awk 'NF { print $1 }' <<<"$RELEASES"); do
        "$0" "$release" &
        pids+=($!)
    done
    failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    exit "$failed"
fi
read -r _ folder INTEGRITY < <(awk -v v="$VERSION" '$1 == v' <<<"$RELEASES") || true
if [ -z "${INTEGRITY:-}" ]; then
    echo "fetch-reference: unknown whisper.rn release '$VERSION' (known: $(awk 'NF { print $1 }' <<<"$RELEASES" | paste -sd " "))" >&2
    exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party/$folder"
stamp="$dest/.integrity"

android_cmake=android/src/main/CMakeLists.txt
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$INTEGRITY" ] && [ -f "$dest/cpp/ggml-backend.cpp" ] && [ -f "$dest/$android_cmake" ]; then
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && npm pack "whisper.rn@$VERSION" --silent >/dev/null)
tarball="$work/whisper.rn-$VERSION.tgz"

actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
if [ "$actual" != "$INTEGRITY" ]; then
    echo "fetch-reference: integrity mismatch for whisper.rn@$VERSION" >&2
    echo "  expected $INTEGRITY" >&2
    echo "  actual   $actual" >&2
    exit 1
fi

rm -rf "$dest"
mkdir -p "$dest"
tar -xzf "$tarball" -C "$dest" --strip-components=1 package/cpp package/package.json package/LICENSE \
    "package/$android_cmake" package/whisper-rn.podspec
echo "$INTEGRITY" > "$stamp"
echo "fetch-reference: whisper.rn@$VERSION unpacked into $dest" >&2
