#!/usr/bin/env bash
# The npm package wsp-ggml-backend installed as a user installs it, from `npm pack` of this
# checkout (scripts/release/npm-pack.sh), in scratch apps (build/npm-test) made of the current React
# Native template's files (@react-native-community/template: android/settings.gradle,
# android/gradle.properties, ios/Podfile; Expo's expo-template-bare-minimum for the config plugin),
# fetched from npm into ~/.cache/wsp-ggml-backend/npm-templates:
#   1. The package: at most 25 MB packed; what is in it.
#   2. `npm install whisper.rn@0.7.4 <tarball>` (npm 11, no allowScripts: the install script runs,
#      and says that Android and iOS take the prebuilt libraries, no Rust needed): whisper.rn's
#      Android CMakeLists and podspec carry one block each, with no absolute path
#      (test/podspec-check.sh: built from source by default, exactly the layer files left out, the
#      framework vendored; uninstalled, the pod as npm gives it); the hooks are
#      the last block of settings.gradle and the Podfile; a second npm install changes nothing.
#      Debian's Gradle evaluates the template's settings.gradle with the hook (test/gradle-standin.py:
#      what Gradle 4.4 cannot run turned into comments, every line in its place), and the hook
#      applies the library again to a whisper.rn that lost its blocks; the hook placed first, as
#      this package placed it before, Gradle refuses. The Kotlin hook (settings.gradle.kts, placed
#      after pluginManagement and plugins in a Kotlin version of the template's file) applies it as
#      well, run by kotlinc (Debian's Gradle 4.4 runs no Kotlin settings file on this JDK).
#   3. No Rust: with cargo off the PATH and a HOME without .cargo, whisper.rn 0.7.4's Android
#      CMakeLists, configured in place for arm64-v8a (aarch64-linux-android), links the package's
#      prebuilt archive, and the library rnwhisper_v8fp16_va_2 built from a copy of the installed
#      package (its JNI sources replaced) with the Linux cross compiler standing in for the NDK's,
#      loaded under qemu, computes a graph through the scheduler (integrations/react-native/test/
#      android-on-linux.sh --installed --build); the podspec, evaluated as pod install evaluates it,
#      puts the package's prebuilt framework in the pod and vendors it.
#   4. llama.rn 0.12.9 added (npm runs no install script of this package then): the Gradle hook
#      applies it; without Rust, its rnllama CMakeLists links the prebuilt archives (CPU, and CPU
#      with OpenCL for the *_opencl library) into its seven arm64 libraries; its podspec puts the
#      prebuilt framework in the pod; its build.gradle builds from source while the package is
#      installed.
#   5. `npm uninstall wsp-ggml-backend`: the blocks stay in whisper.rn's and llama.rn's files and do
#      nothing: configured in place, both build their own layer; the podspecs build what npm's do;
#      llama.rn's build.gradle defaults to its prebuilt libraries again; the hooks do nothing.
#      Reinstalled (`npm install <tarball>`): applied again, one block each, no Rust needed.
#   6. A release without prebuilt libraries (whisper.rn 0.5.5) is built from source by cargo from
#      the crates the package vendors, with no crates.io access (an empty CARGO_HOME, offline);
#      without Rust its configure step stops, naming what to install.
#   7. A release the release table does not serve (whisper.rn 0.6.0-rc.2): installed, refused, left
#      as npm gave it; the next build (the Gradle hook) says so.
#   8. wspGgmlBackendEnabled=false in gradle.properties: the configure step leaves the package's
#      own layer in place.
#   9. The Expo config plugin through @expo/config-plugins' mod compiler on Expo's template: the
#      hook at the end of its settings.gradle (which Gradle then evaluates) and Podfile,
#      wspGgmlBackendEnabled=true; applied twice, the same files.
#  10. Package managers: yarn 1; yarn 4 (berry, node-modules linker, the package's build allowed by
#      dependenciesMeta, as yarn 4 runs none by default); pnpm with allowBuilds in
#      pnpm-workspace.yaml (applied by the install script) and without it (not run: React Native's
#      autolinking, reading the package's react-native.config.js, applies it and says so); npm 11
#      with allowScripts allowing the package (strict-allow-scripts), and denying it (as pnpm
#      without allowBuilds); an
#      npm-workspaces monorepo with the app in a workspace (the hooks in the app's files, the
#      packages hoisted to the root's node_modules): each applied, its hooks in place.
# `wsp-ggml-backend --help` and `--version` answer. Peer dependencies (react, react-native) are not
# installed (--legacy-peer-deps); llama.rn's own postinstall download is skipped
# (RNLLAMA_SKIP_POSTINSTALL=1; no GitHub here).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
integration="$root/integrations/react-native"
source "$integration/test/common.sh"
work="$root/build/npm-test"
cache="$HOME/.cache/wsp-ggml-backend/npm-templates"
# the templates' versions: the newest on npm when this was written
rn_template=@react-native-community/template@0.87.2
expo_template=expo-template-bare-minimum@57.0.28
rm -rf "$work"
mkdir -p "$work" "$cache"
export RNLLAMA_SKIP_POSTINSTALL=1
# Gradle's own files for this run (Debian's gradle), and its daemon, stopped at the end
export GRADLE_USER_HOME="$work/gradle-home"
trap 'gradle --stop >/dev/null 2>&1 || true' EXIT

fail() {
    echo "npm-test: $*" >&2
    exit 1
}

# 1. the package
tarball=$("$root/scripts/release/npm-pack.sh" "$work" 2>"$work/pack.log") || fail "npm-pack.sh: $(tail -n 20 "$work/pack.log")"
grep -c '^npm-prebuilt: ' "$work/pack.log" | sed 's/^/npm-test: prebuilt archives checked: /'
size=$(stat -c %s "$tarball")
[ "$size" -le $((25 * 1024 * 1024)) ] || fail "the package is $((size / 1024)) kB packed, over 25 MB"
tar -tvzf "$tarball" | awk '{ split($6, p, "/"); part = p[2] == "prebuilt" ? p[2] "/" p[3] : p[2]; size[part] += $3 }
    END { for (part in size) printf "%s %d kB\n", part, size[part] / 1024 }' | sort -k2 -n -r | head -n 6 \
    | paste -sd ';' | sed "s/;/; /g; s/^/npm-test: $(basename "$tarball"): $((size / 1024)) kB packed; unpacked: /"

# template NAME@VERSION: the template's folder with android/ and ios/, fetched once
template() {
    local dir="$cache/${1//\//-}"
    if [ ! -d "$dir" ]; then
        rm -rf "$dir.tmp"
        mkdir -p "$dir.tmp"
        # npm pack checks the tarball against the registry's integrity
        (cd "$dir.tmp" && npm pack --silent "$1" >/dev/null && tar -xzf ./*.tgz && rm ./*.tgz)
        mv "$dir.tmp" "$dir"
    fi
    if [ -d "$dir/package/template" ]; then echo "$dir/package/template"; else echo "$dir/package"; fi
}
rn=$(template "$rn_template")
expo_files=$(template "$expo_template")

# scratch_app DIR [TEMPLATE]: the template's files that the package touches, and a package.json
scratch_app() {
    mkdir -p "$1/android" "$1/ios"
    echo '{ "name": "scratch-app", "version": "1.0.0", "private": true }' > "$1/package.json"
    cp "${2:-$rn}/android/settings.gradle" "${2:-$rn}/android/gradle.properties" "$1/android/"
    cp "${2:-$rn}/ios/Podfile" "$1/ios/"
}

npm_install() {
    (cd "$app" && npm install --no-audit --no-fund --legacy-peer-deps --loglevel=error "$@")
}

# check_applied RELEASE [DIR]: the package of RELEASE installed in the app (or DIR's node_modules)
# carries one block a file, nothing absolute, and its podspec builds with the library
check_applied() {
    local release=$1 dir file verdict
    wsp_release "$release"
    dir="${2:-$app}/node_modules/$wsp_package"
    [ "$(wsp_json_string "$dir/package.json" version)" = "$wsp_version" ] || fail "$release is not installed"
    for file in "$wsp_android_cmake" "$wsp_podspec"; do
        [ "$(grep -c '^ *# wsp-ggml-backend begin' "$dir/$file")" -eq "$(case $file in *.podspec) echo 2 ;; *) echo 1 ;; esac)" ] \
            || fail "$release: $file has $(grep -c 'wsp-ggml-backend begin' "$dir/$file") blocks"
        ! grep -qE "$root|$work|/node_modules/\.pnpm" "$dir/$file" || fail "$release: $file names an absolute path"
    done
    if [ -n "$wsp_gradle_switch" ]; then
        grep -qF "findProperty(\"$wsp_gradle_switch\") ?: wspGgmlBackendInstalled.toString()" "$dir/android/build.gradle" \
            || fail "$release: android/build.gradle does not build from source while the package is installed"
    fi
    verdict=$("$integration/test/podspec-check.sh" "$(reference "$release")" "$dir") || fail "$release: the podspec check failed"
    echo "npm-test: $release: one block in $wsp_android_cmake, two in $wsp_podspec, nothing absolute; podspec: $verdict"
}

# check_hooks DIR: the hooks are the last block of DIR's settings.gradle and Podfile, once
check_hooks() {
    local file
    for file in "$1/android/settings.gradle" "$1/ios/Podfile"; do
        [ "$(grep -c 'wsp-ggml-backend begin' "$file")" -eq 1 ] || fail "$file: $(grep -c 'wsp-ggml-backend begin' "$file") hooks"
        [ "$(grep -v '^[[:space:]]*$' "$file" | tail -n 1)" = "$(case $file in *Podfile) echo '#' ;; *) echo '//' ;; esac) wsp-ggml-backend end" ] \
            || fail "$file: the hook is not the file's last block"
    done
}

# gradle_settings DIR [LOG]: Debian's Gradle evaluates DIR's android/settings.gradle as
# test/gradle-standin.py leaves it (the hook runs); its output in LOG
gradle_settings() {
    local standin="$work/gradle-$(basename "$1")"
    rm -rf "$standin"
    mkdir -p "$standin"
    python3 "$root/packages/react-native/test/gradle-standin.py" "$1/android/settings.gradle" > "$standin/settings.gradle"
    # (the hook finds the package from the settings file's folder: the stand-in takes its place)
    cp "$1/android/settings.gradle" "$1/android/settings.gradle.orig"
    cp "$standin/settings.gradle" "$1/android/settings.gradle"
    local status=0
    (cd "$1/android" && gradle --offline -q help) > "${2:-$work/gradle.log}" 2>&1 || status=$?
    mv "$1/android/settings.gradle.orig" "$1/android/settings.gradle"
    return $status
}

# without_blocks DIR: the package in DIR as npm gives it, as if reinstalled (its files lose the
# scripts' blocks)
without_blocks() {
    local file
    while read -r file; do
        wsp_without_blocks "$file" | wsp_write "$file"
    done < <(grep -rlF 'wsp-ggml-backend begin' "$1")
}

# fingerprint: what the package changes, for comparing two installs
fingerprint() {
    (cd "$app" && cat node_modules/*.rn/android/src/main/CMakeLists.txt node_modules/*.rn/*.podspec \
        android/settings.gradle ios/Podfile | sha256sum | cut -d' ' -f1)
}

# no_rust: what follows runs with cargo and rustup off the PATH and a HOME without .cargo
nocargo_path=$(echo "$PATH" | tr : '\n' | while read -r dir; do [ -x "$dir/cargo" ] || [ -x "$dir/rustup" ] || echo "$dir"; done | paste -sd :)
mkdir -p "$work/home"
no_rust() {
    env PATH="$nocargo_path" HOME="$work/home" "$@"
}
no_rust bash -c '! command -v cargo && ! command -v rustup' >/dev/null || fail "cargo is still on the PATH"

# pod_install DIR: DIR's podspec evaluated as pod install evaluates it (what it runs, run), without
# Rust; the framework must then be in the pod, made for the release, and vendored
pod_install() {
    wsp_release "$1"
    no_rust ruby "$integration/test/podspec.rb" "$1" --run > "$work/pod.log" 2>&1 || fail "$1: $(cat "$work/pod.log")"
    grep -qx 'framework ios/WspGgmlBackend.xcframework' "$work/pod.log" || fail "$1: the framework is not vendored"
    [ "$(cat "$1/ios/WspGgmlBackend.xcframework.release")" = "$wsp_build $wsp_ios_builtins" ] \
        && [ -f "$1/ios/WspGgmlBackend.xcframework/Info.plist" ] || fail "$1: no framework for $wsp_build in the pod"
    echo "npm-test: $wsp_package $wsp_version without Rust: the podspec puts $(grep -o "the package's prebuilt one" "$work/pod.log" || echo "a framework") in the pod and vendors it"
}

# 2. the first install, by npm
app="$work/app"
scratch_app "$app"
# (--foreground-scripts: npm shows what the install script says, which it hides otherwise)
npm_install --foreground-scripts whisper.rn@0.7.4 "$tarball" > "$work/install.log" 2>&1 || fail "npm install: $(cat "$work/install.log")"
echo "npm-test: npm $(npm --version), no allowScripts in package.json: the install script ran"
for platform in Android iOS; do
    grep -E "apply.sh: $platform: .*prebuilt.*no Rust needed" "$work/install.log" | sed 's/^ *apply.sh: /npm-test: the install says: /' \
        | grep . || fail "the install does not say that $platform needs no Rust: $(cat "$work/install.log")"
done
check_applied 0.7.4
check_hooks "$app"
version=$("$app/node_modules/.bin/wsp-ggml-backend" --version)
[ "$version" = "$(wsp_json_string "$app/node_modules/wsp-ggml-backend/package.json" version)" ] || fail "--version says '$version'"
"$app/node_modules/.bin/wsp-ggml-backend" --help | grep -q '^usage: wsp-ggml-backend' || fail "--help has no usage"
echo "npm-test: wsp-ggml-backend --version: $version; --help: usage"
before=$(fingerprint)
npm_install >/dev/null
[ "$(fingerprint)" = "$before" ] || fail "a second npm install changed the files"
echo "npm-test: a second npm install changes nothing"

# Gradle: the template's settings file with the hook, and the hook where this package put it before
without_blocks "$app/node_modules/whisper.rn"
gradle_settings "$app" "$work/gradle.log" || fail "Gradle refused settings.gradle: $(cat "$work/gradle.log")"
check_applied 0.7.4 >/dev/null
echo "npm-test: Debian's $(gradle --version 2>/dev/null | grep -m1 '^Gradle') evaluated the React Native template's settings.gradle with the hook last: it applied the library to whisper.rn again"
first="$work/hook-first"
scratch_app "$first"
{ sed -n '/^\/\/ wsp-ggml-backend begin/,/^\/\/ wsp-ggml-backend end/p' "$app/android/settings.gradle"; echo; cat "$rn/android/settings.gradle"; } > "$first/android/settings.gradle"
! gradle_settings "$first" "$work/gradle-first.log" || fail "Gradle took the hook before pluginManagement"
grep -q 'The pluginManagement {} block must appear before any other statements' "$work/gradle-first.log" \
    || fail "Gradle refused the hook first for another reason: $(cat "$work/gradle-first.log")"
echo "npm-test: the hook placed first, Gradle refuses: The pluginManagement {} block must appear before any other statements"
# the Kotlin hook: placed after pluginManagement and plugins, then run by kotlinc as the settings
# script would run it (rootDir: the app's android/)
kts="$work/kts"
scratch_app "$kts"
rm "$kts/android/settings.gradle"
cat > "$kts/android/settings.gradle.kts" <<'KTS'
pluginManagement { includeBuild("../node_modules/@react-native/gradle-plugin") }
plugins { id("com.facebook.react.settings") }
extensions.configure<com.facebook.react.ReactSettingsExtension> { autolinkLibrariesFromCommand() }
rootProject.name = "HelloWorld"
include(":app")
includeBuild("../node_modules/@react-native/gradle-plugin")
KTS
node -e 'const { installHooks } = require(process.argv[1]); installHooks(process.argv[2]);' "$app/node_modules/wsp-ggml-backend" "$kts"
head -n 6 "$kts/android/settings.gradle.kts" | cmp -s - <(sed -n 1,6p "$kts/android/settings.gradle.kts") \
    && [ "$(sed -n 7p "$kts/android/settings.gradle.kts")" = "" ] && sed -n 8p "$kts/android/settings.gradle.kts" | grep -q '^// wsp-ggml-backend begin' \
    || fail "settings.gradle.kts: the hook is not after the template's statements"
without_blocks "$app/node_modules/whisper.rn"
{ echo "val rootDir = java.io.File(\"$app/android\")"; sed -n '/^\/\/ wsp-ggml-backend begin/,/^\/\/ wsp-ggml-backend end/p' "$kts/android/settings.gradle.kts"; } > "$work/hook.kts"
kotlinc -script "$work/hook.kts" > "$work/kotlin.log" 2>&1 || fail "kotlinc: $(cat "$work/kotlin.log")"
check_applied 0.7.4 >/dev/null
echo "npm-test: settings.gradle.kts: the hook after the template's statements; run by kotlinc, it applied the library to whisper.rn again"

# 3. no Rust: whisper.rn's Android build and podspec with the prebuilt libraries
no_rust "$integration/test/android-on-linux.sh" --installed "$app/node_modules/whisper.rn" --build \
    | grep -E '^android-on-linux: |^wsp-ggml-backend: .*archives:|computed through the scheduler' | sed 's/^/npm-test: (no Rust) /'
pod_install "$app/node_modules/whisper.rn"

# 4. llama.rn added: the Gradle hook applies it
npm_install llama.rn@0.12.9 >/dev/null
gradle_settings "$app" "$work/gradle-llama.log" || fail "Gradle: $(cat "$work/gradle-llama.log")"
check_applied llama.rn@0.12.9
no_rust "$integration/test/android-on-linux.sh" --installed "$app/node_modules/llama.rn" \
    | grep -E '^android-on-linux: ' | sed 's/^/npm-test: (no Rust) /'
pod_install "$app/node_modules/llama.rn"

# 5. uninstalled, then reinstalled
(cd "$app" && npm uninstall --no-audit --no-fund --legacy-peer-deps --loglevel=error wsp-ggml-backend >/dev/null)
[ ! -e "$app/node_modules/wsp-ggml-backend" ] || fail "npm uninstall left the package"
for release in 0.7.4 llama.rn@0.12.9; do
    wsp_release "$release"
    dir="$app/node_modules/$wsp_package"
    grep -q 'wsp-ggml-backend begin' "$dir/$wsp_android_cmake" || fail "$release: the block is gone (npm reinstalled the package?)"
    "$integration/test/android-on-linux.sh" --installed "$dir" --expect-off | grep '^android-on-linux: ' | sed 's/^/npm-test: (uninstalled) /'
    diff <(ruby "$integration/test/podspec.rb" "$(reference "$release")" | grep -v '^source ios/') \
        <(ruby "$integration/test/podspec.rb" "$dir" | grep -v '^source ios/') > /dev/null \
        || fail "$release: uninstalled, the podspec does not build what npm's builds"
done
gradle_settings "$app" "$work/gradle-uninstalled.log" || fail "uninstalled, Gradle: $(cat "$work/gradle-uninstalled.log")"
! grep -q 'wsp-ggml-backend' "$work/gradle-uninstalled.log" || fail "uninstalled, the hook said: $(cat "$work/gradle-uninstalled.log")"
(cd "$app/ios" && sed -n '/^# wsp-ggml-backend begin/,/^# wsp-ggml-backend end/p' Podfile > hook.rb && ruby hook.rb && rm hook.rb) \
    || fail "uninstalled, the Podfile's hook fails"
echo "npm-test: uninstalled: the blocks do nothing (whisper.rn and llama.rn configure with their own layer, their podspecs build what npm's do), the hooks do nothing"
# llama.rn's Gradle default: prebuilt again without the package, from source with it
gradle_default() {
    local project="$work/gradle-default"
    rm -rf "$project" && mkdir -p "$project"
    echo "rootProject.name = 'default'" > "$project/settings.gradle"
    { sed -n '/^\/\/ wsp-ggml-backend begin/,/^\/\/ wsp-ggml-backend end/p' "$app/node_modules/llama.rn/android/build.gradle"
      echo 'println("from source: " + ((findProperty("rnllamaBuildFromSource") ?: wspGgmlBackendInstalled.toString()).toString() == "true"))'
    } | sed "s|project.projectDir|new File(\"$app/node_modules/llama.rn/android\")|" > "$project/build.gradle"
    (cd "$project" && gradle --offline -q help 2>/dev/null) | sed -n 's/^from source: //p'
}
[ "$(gradle_default)" = false ] || fail "uninstalled, llama.rn's build.gradle still builds from source"
npm_install "$tarball" > "$work/reinstall.log" 2>&1 || fail "reinstall: $(cat "$work/reinstall.log")"
check_applied 0.7.4
check_applied llama.rn@0.12.9
check_hooks "$app"
[ "$(gradle_default)" = true ] || fail "reinstalled, llama.rn's build.gradle does not build from source"
no_rust "$integration/test/android-on-linux.sh" --installed "$app/node_modules/whisper.rn" \
    | grep -E '^android-on-linux: ' | sed 's/^/npm-test: (reinstalled, no Rust) /'
echo "npm-test: reinstalled: applied again, one block each; llama.rn's build.gradle builds from source again"

# 6. a release without prebuilt libraries: cargo from the vendored crates, offline; without Rust,
# the configure step says what to install (cargo's folder this run's own: an archive an earlier
# run built there would be found without Rust)
export WSP_INTEGRATION_CARGO_DIR="$work/cargo-target"
npm_install whisper.rn@0.5.5 >/dev/null
gradle_settings "$app" "$work/gradle-055.log" || fail "Gradle: $(cat "$work/gradle-055.log")"
check_applied 0.5.5 >/dev/null
if no_rust "$integration/test/android-on-linux.sh" --installed "$app/node_modules/whisper.rn" > "$work/norust.log" 2>&1; then
    fail "whisper.rn 0.5.5 configured without Rust"
fi
tr -s ' \n' '  ' < "$work/norust.log" | grep -oE 'wsp-ggml-backend: whisper.rn 0.5.5 for aarch64-linux-android is built from source.*rustup target add aarch64-linux-android' \
    | sed 's/^/npm-test: (no Rust) /' | grep . || fail "without Rust, whisper.rn 0.5.5's configure step did not say what to install: $(cat "$work/norust.log")"
mkdir -p "$work/cargo-home"
CARGO_HOME="$work/cargo-home" CARGO_NET_OFFLINE=true "$integration/test/android-on-linux.sh" --installed "$app/node_modules/whisper.rn" \
    | grep -E '^android-on-linux: ' | sed 's/^/npm-test: (vendored crates, offline) /'
unset WSP_INTEGRATION_CARGO_DIR

# 7. a release the table does not serve: refused at install and at the next build
unserved=0.6.0-rc.2
unserved_app="$work/unserved"
scratch_app "$unserved_app"
(cd "$unserved_app" && npm install --no-audit --no-fund --legacy-peer-deps --loglevel=error --foreground-scripts \
    "whisper.rn@$unserved" "$tarball") > "$work/unserved.log" 2>&1 || fail "the install of whisper.rn $unserved failed: $(cat "$work/unserved.log")"
gradle_settings "$unserved_app" "$work/unserved-hook.log" || fail "Gradle: $(cat "$work/unserved-hook.log")"
expected="whisper.rn $unserved is not served; served releases: $(wsp_served whisper.rn)"
for log in unserved unserved-hook; do
    grep -qF "$expected" "$work/$log.log" || fail "whisper.rn $unserved: $log.log does not say it is not served: $(cat "$work/$log.log")"
done
! grep -rqF wsp-ggml-backend "$unserved_app/node_modules/whisper.rn/android" "$unserved_app/node_modules/whisper.rn/whisper-rn.podspec" \
    || fail "whisper.rn $unserved was changed"
echo "npm-test: whisper.rn $unserved: installed, refused at install and by the Gradle hook at the next build, left as npm gave it: $expected"

# 8. the Gradle property that turns the library off
# (the template's file ends without a newline)
printf '\nwspGgmlBackendEnabled=false\n' >> "$app/android/gradle.properties"
npm_install whisper.rn@0.7.4 >/dev/null
gradle_settings "$app" "$work/gradle-off.log" || fail "Gradle: $(cat "$work/gradle-off.log")"
"$integration/test/android-on-linux.sh" --installed "$app/node_modules/whisper.rn" --expect-off | grep '^android-on-linux' | sed 's/^/npm-test: /'

# 9. the Expo config plugin, on Expo's template
expo="$work/expo"
scratch_app "$expo" "$expo_files"
(cd "$expo" && npm install --no-audit --no-fund --legacy-peer-deps --loglevel=error @expo/config-plugins@58.0.14 "$tarball" >/dev/null)
for round in 1 2; do
    (cd "$expo" && node -e '
        const { compileModsAsync } = require("@expo/config-plugins");
        const plugin = require("wsp-ggml-backend/app.plugin.js");
        const config = plugin({ name: "scratch-app", slug: "scratch-app", _internal: { projectRoot: process.cwd() } });
        compileModsAsync(config, { projectRoot: process.cwd(), platforms: ["android", "ios"] })
            .catch((error) => { console.error(error); process.exit(1); });')
    sha256sum "$expo/android/gradle.properties" "$expo/android/settings.gradle" "$expo/ios/Podfile" > "$work/expo.$round"
done
cmp -s "$work/expo.1" "$work/expo.2" || fail "the Expo plugin applied twice changed the project again"
grep -qx 'wspGgmlBackendEnabled=true' "$expo/android/gradle.properties" || fail "Expo: no wspGgmlBackendEnabled=true"
check_hooks "$expo"
gradle_settings "$expo" "$work/gradle-expo.log" || fail "Gradle refused Expo's settings.gradle: $(cat "$work/gradle-expo.log")"
echo "npm-test: Expo plugin: the hooks last in the Expo template's settings.gradle (evaluated by Gradle) and Podfile, gradle.properties set; applied twice, the same files"

# 10. package managers, each in an app of its own, fetched from the npm registry by npx
# pm_app NAME: a scratch app for package manager NAME; prints its folder
pm_app() {
    scratch_app "$work/$1"
    echo "$work/$1"
}
# applied_in DIR LABEL: whisper.rn 0.7.4 applied in DIR's node_modules and DIR's hooks in place
applied_in() {
    check_applied 0.7.4 "$1" | sed "s/^npm-test: /npm-test: $2: /"
    check_hooks "$1"
}
yarn1=(npx --yes yarn@1.22.22)
berry=(npx --yes @yarnpkg/cli-dist@4.18.1)
pnpm=(npx --yes pnpm@12.25.1)

dir=$(pm_app yarn1)
(cd "$dir" && "${yarn1[@]}" add --registry https://registry.npmjs.org whisper.rn@0.7.4 "file:$tarball") > "$work/yarn1.log" 2>&1 \
    || fail "yarn 1: $(cat "$work/yarn1.log")"
applied_in "$dir" "yarn 1"

dir=$(pm_app berry)
# (yarn 4 runs no dependency's build script unless told: enableScripts is false by default)
sed -i 's/"private": true }/"private": true, "dependenciesMeta": { "wsp-ggml-backend": { "built": true } } }/' "$dir/package.json"
(cd "$dir" && touch yarn.lock \
    && printf 'nodeLinker: node-modules\nenableTelemetry: false\nnpmRegistryServer: "https://registry.npmjs.org"\n' > .yarnrc.yml \
    && YARN_ENABLE_IMMUTABLE_INSTALLS=false "${berry[@]}" add whisper.rn@0.7.4 "wsp-ggml-backend@file:$tarball") > "$work/berry.log" 2>&1 \
    || fail "yarn 4: $(cat "$work/berry.log")"
applied_in "$dir" "yarn $(cd "$dir" && "${berry[@]}" --version) (node-modules linker, dependenciesMeta built)"

for allowed in yes no; do
    dir=$(pm_app "pnpm-$allowed")
    # (installed from the registry, its selector is its name; from a tarball, pnpm wants the
    # tarball's spec, as `pnpm approve-builds` says)
    if [ "$allowed" = yes ]; then
        printf 'allowBuilds:\n  "wsp-ggml-backend@file:%s": true\n' "$(realpath --relative-to="$dir" "$tarball")" > "$dir/pnpm-workspace.yaml"
    fi
    # (without it, pnpm 12 installs, then fails naming the build it ignored)
    (cd "$dir" && "${pnpm[@]}" add --config.auto-install-peers=false whisper.rn@0.7.4 "file:$tarball") > "$work/pnpm-$allowed.log" 2>&1 \
        || { [ "$allowed" = no ] && grep -q 'Ignored build scripts: wsp-ggml-backend' "$work/pnpm-$allowed.log"; } \
        || fail "pnpm: $(cat "$work/pnpm-$allowed.log")"
    if [ "$allowed" = no ]; then
        grep -q 'wsp-ggml-backend begin' "$dir/android/settings.gradle" && fail "pnpm ran the install script without allowBuilds"
        # what React Native's CLI does when it lists the app's native modules (cosmiconfig requires
        # each dependency's react-native.config.js)
        (cd "$dir" && node -e 'require(require.resolve("wsp-ggml-backend/react-native.config.js", { paths: [process.cwd()] }))') \
            2> "$work/pnpm-autolinking.log" || fail "react-native.config.js: $(cat "$work/pnpm-autolinking.log")"
        grep -q "its install script did not run" "$work/pnpm-autolinking.log" || fail "react-native.config.js said nothing"
    fi
    applied_in "$dir" "pnpm $("${pnpm[@]}" --version) $([ "$allowed" = yes ] && echo "with allowBuilds" || echo "without allowBuilds, applied at autolinking")"
    # (the scripts write new files: pnpm's store, which node_modules hard-link, keeps npm's)
    for file in android/src/main/CMakeLists.txt whisper-rn.podspec; do
        [ "$(stat -c %h "$dir/node_modules/whisper.rn/$file")" -eq 1 ] || fail "pnpm: $file is still shared with the store"
    done
done

# (allowScripts names a package installed from a tarball by the tarball's spec, as
# `npm install-scripts approve|deny wsp-ggml-backend` writes it; strict: a script it does not
# allow would fail the install)
for allowed in true false; do
    dir=$(pm_app "npm-allow-$allowed")
    sed -i "s|\"private\": true }|\"private\": true, \"allowScripts\": { \"file:$tarball\": $allowed } }|" "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --legacy-peer-deps --loglevel=error --strict-allow-scripts \
        whisper.rn@0.7.4 "$tarball") > "$work/npm-allow-$allowed.log" 2>&1 \
        || fail "npm with allowScripts $allowed: $(cat "$work/npm-allow-$allowed.log")"
    if [ "$allowed" = false ]; then
        grep -q 'wsp-ggml-backend begin' "$dir/android/settings.gradle" && fail "npm ran the install script that allowScripts denies"
        (cd "$dir" && node -e 'require(require.resolve("wsp-ggml-backend/react-native.config.js", { paths: [process.cwd()] }))') 2>/dev/null
    fi
    applied_in "$dir" "npm with allowScripts $allowed$([ "$allowed" = false ] && echo ", applied at autolinking")"
done

monorepo="$work/monorepo"
mkdir -p "$monorepo"
echo '{ "name": "monorepo", "private": true, "workspaces": ["apps/*"] }' > "$monorepo/package.json"
scratch_app "$monorepo/apps/mobile"
sed -i 's/"name": "scratch-app"/"name": "mobile"/' "$monorepo/apps/mobile/package.json"
(cd "$monorepo" && npm install --no-audit --no-fund --legacy-peer-deps --loglevel=error -w apps/mobile whisper.rn@0.7.4 "$tarball") \
    > "$work/monorepo.log" 2>&1 || fail "npm workspaces: $(cat "$work/monorepo.log")"
[ -d "$monorepo/node_modules/whisper.rn" ] || fail "npm workspaces: whisper.rn not hoisted to the root"
check_applied 0.7.4 "$monorepo" >/dev/null
check_hooks "$monorepo/apps/mobile"
gradle_settings "$monorepo/apps/mobile" "$work/gradle-monorepo.log" || fail "Gradle: $(cat "$work/gradle-monorepo.log")"
echo "npm-test: npm workspaces: whisper.rn applied in the root's node_modules, the hooks in apps/mobile (evaluated by Gradle)"
