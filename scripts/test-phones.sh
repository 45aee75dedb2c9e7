#!/usr/bin/env bash
# The phones' part of scripts/test.sh: the library and whisper.rn's C++ on arm64 and 32-bit ARM
# under qemu (scripts/cross.sh: unit tests, conformance suite, one transcript against the
# reference build), the static archive of each whisper.rn build for Android and iOS targets
# (scripts/mobile-libs.sh), and whisper.rn's own Android build and podspec with this library, for
# each release it serves (integrations/react-native/test).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

scripts/cross.sh aarch64-unknown-linux-gnu
scripts/cross.sh armv7-unknown-linux-gnueabihf
scripts/mobile-libs.sh aarch64-linux-android armv7-linux-androideabi aarch64-apple-ios
integrations/react-native/test/run.sh
