#!/usr/bin/env bash
# The phones' part of scripts/test.sh: the library and whisper.rn's C++ on arm64 and 32-bit ARM
# under qemu (scripts/phones/cross.sh: unit tests, conformance suite, one transcript against the
# reference build), the static archive of each whisper.rn build for Android and iOS targets
# (scripts/phones/mobile-libs.sh), and the packages' own Android builds and podspecs with this library,
# for each release they serve (integrations/react-native/test).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

scripts/phones/cross.sh aarch64-unknown-linux-gnu
scripts/phones/cross.sh armv7-unknown-linux-gnueabihf
scripts/phones/mobile-libs.sh aarch64-linux-android armv7-linux-androideabi aarch64-apple-ios
# (the packages' Android C++ is built by hand, integrations/react-native/test/android-on-linux.sh
# <package>@<newest>: llama.cpp with LTO takes five minutes, and whisper.rn's newest is built and
# loaded in CI by the npm package's test, from the installed package)
WSP_ANDROID_BUILDS= integrations/react-native/test/run.sh
