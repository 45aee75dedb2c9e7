#!/usr/bin/env bash
# Fetch whisper.rn 0.4.3 from npm (the reference backend layer and the ggml core the
# tests link against), check it against npm's published integrity, and unpack it into
# third_party/whisper.rn (ignored by git): cpp/, and the Android CMakeLists and the podspec that
# integrations/whisper.rn/ adapts. Idempotent: does nothing when already there.
set -euo pipefail

VERSION=0.4.3
INTEGRITY='sha512-isvW9AAtY73l7yvH5u9MzR8J1T4O1J8XXjbYZwiEjQaisoWW25gkiDgYeSK69NmY/RUuPNC+G8iJB76oKCQk5w=='

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party/whisper.rn"
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
