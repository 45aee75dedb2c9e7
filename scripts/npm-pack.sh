#!/usr/bin/env bash
# Makes the npm package wsp-ggml-backend (packages/react-native) with `npm pack`, and prints the
# tarball's path. The package carries what an app's native build needs to build the library
# (the crate's sources and Cargo.lock, the release table, the CMake and shell pieces of
# integrations/react-native), no prebuilt binary: Gradle's CMake step and pod install run cargo.
# Its version is the crate's (Cargo.toml). Nothing is published.
#
#   scripts/npm-pack.sh [OUT_DIR]    (default: build/npm)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/build/npm}" && cd "${1:-$root/build/npm}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cd "$root"
# the crate, as cargo builds it (the workspace's other crates and the tests stay out)
files=(Cargo.toml Cargo.lock build.rs releases.txt src include macros/Cargo.toml macros/src
       cmake/release_table.cmake cmake/rust_target.cmake scripts/release-table.sh
       integrations/react-native/release.sh integrations/react-native/android integrations/react-native/ios)
for file in "${files[@]}"; do
    mkdir -p "$stage/$(dirname "$file")"
    cp -R "$file" "$stage/$file"
done
cp -R packages/react-native/. "$stage/"
rm -rf "$stage/test"
sed -i.orig "s/\"version\": \"[^\"]*\"/\"version\": \"$version\"/" "$stage/package.json"
rm -f "$stage/package.json.orig"
(cd "$stage" && npm pack --silent --pack-destination "$out" >/dev/null)
echo "$out/wsp-ggml-backend-$version.tgz"
