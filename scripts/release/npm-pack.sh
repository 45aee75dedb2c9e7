#!/usr/bin/env bash
# Makes the npm package wsp-ggml-backend (packages/react-native) with `npm pack`, and prints the
# tarball's path. The package carries what an app's native build needs:
#   prebuilt/       the static libraries of the newest family of each package (Android's four
#                   ABIs, the iOS xcframework: scripts/release/npm-prebuilt.sh), so that no Rust is needed
#   the crate       its sources, the release table, Cargo.toml without the tests' dependencies and
#                   the Cargo.lock they leave, for any other release, which the app's build
#                   compiles with cargo: from vendor/ (the crates it uses, `cargo vendor`), which
#                   .cargo/config.toml points cargo at, so no crates.io access is needed
#   integrations/react-native, cmake/release_table.cmake, rust_target.cmake and old_option_names.cmake, and the
#   package's own files (packages/react-native, without its test)
# Its version is the crate's (Cargo.toml). Nothing is published.
#
#   scripts/release/npm-pack.sh [OUT_DIR]    (default: build/npm)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "${1:-$root/build/npm}" && cd "${1:-$root/build/npm}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cd "$root"
files=(Cargo.lock build.rs releases.txt src include macros/Cargo.toml macros/src
       cmake/release_table.cmake cmake/rust_target.cmake cmake/old_option_names.cmake scripts/release/release-table.sh
       integrations/react-native/release.sh integrations/react-native/android integrations/react-native/ios)
for file in "${files[@]}"; do
    mkdir -p "$stage/$(dirname "$file")"
    cp -R "$file" "$stage/$file"
done
# the manifest without [dev-dependencies] (the tests' crates); cargo vendor then drops them from
# the lock file too
awk '/^\[/ { skip = ($0 == "[dev-dependencies]") } !skip' Cargo.toml > "$stage/Cargo.toml"
(cd "$stage" && cargo vendor --quiet --versioned-dirs vendor >/dev/null)
mkdir -p "$stage/.cargo"
cat > "$stage/.cargo/config.toml" <<'TOML'
# cargo, run in this folder (the Android configure step's cargo and ios/build-xcframework.sh),
# takes the crates from vendor/: no crates.io access is needed
[source.crates-io]
replace-with = "vendored-sources"

[source.vendored-sources]
directory = "vendor"

TOML
cat .cargo/config.toml >> "$stage/.cargo/config.toml"
"$root/scripts/release/npm-prebuilt.sh" "$stage/prebuilt" >&2
cp -R packages/react-native/. "$stage/"
rm -rf "$stage/test"
sed -i.orig "s/\"version\": \"[^\"]*\"/\"version\": \"$version\"/" "$stage/package.json"
rm -f "$stage/package.json.orig"
# npm leaves some files out of any package (Cargo.toml.orig among them), which cargo, checking a
# vendored crate's files against its .cargo-checksum.json, would miss: the crates lose them too
(cd "$stage" && npm pack --dry-run --json 2>/dev/null | python3 -c '
import json, os, sys
packed = {f["path"] for f in json.load(sys.stdin)[0]["files"]}
for crate in os.listdir("vendor"):
    listing = os.path.join("vendor", crate, ".cargo-checksum.json")
    checksums = json.load(open(listing))
    for name in [n for n in checksums["files"] if f"vendor/{crate}/{n}" not in packed]:
        os.remove(os.path.join("vendor", crate, name))
        del checksums["files"][name]
    json.dump(checksums, open(listing, "w"))
') || { echo "npm-pack: pruning vendor/ failed" >&2; exit 1; }
(cd "$stage" && npm pack --silent --pack-destination "$out" >/dev/null)
echo "$out/wsp-ggml-backend-$version.tgz"
