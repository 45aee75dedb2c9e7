#!/usr/bin/env bash
# The npm package wsp-ggml-backend installed as a user installs it, in scratch apps (build/npm-test):
#   1. `npm install whisper.rn@0.4.3 <the packed tarball>`: whisper.rn's Android CMakeLists includes
#      the package's wsp-ggml-backend.cmake, and configured in place by
#      test/android-on-linux.sh --installed it builds the archive (no C++ build: the JNI sources
#      need the JNI headers); its podspec carries the block (test/podspec-check.sh: built from
#      source exactly the layer files left out, the framework vendored, pod install building it);
#      the app's android/settings.gradle and ios/Podfile carry the hooks; a second `npm install`
#      changes nothing.
#   2. Upgrades to each whisper.rn family's newest release and to llama.rn's (npm install
#      PACKAGE@VERSION, which runs no postinstall of this package): the app's Podfile, run by Ruby
#      as pod install runs it, applies the library again, and the same checks hold for the new
#      release (for llama.rn: its rnllama/CMakeLists.txt, its Gradle source build by default).
#   3. The package removed (npm uninstall) and whisper.rn reinstalled: whisper.rn as npm gave it,
#      the Podfile's hook inert. With wspGgmlBackendEnabled=false in the app's gradle.properties,
#      the installed whisper.rn's configure step leaves its own layer in place.
#   4. A whisper.rn release the release table does not serve (0.6.0-rc.2): the install succeeds,
#      says so, and leaves whisper.rn as npm gave it.
#   5. The Expo config plugin through @expo/config-plugins' own mod compiler, on a scratch
#      project: the Gradle properties, the hooks and the Podfile's switches set; applied twice,
#      the same files.
#   6. yarn (1.22) and pnpm (9) install whisper.rn 0.7.4 and the package: applied as with npm
#      (pnpm runs the postinstall of a package its onlyBuiltDependencies lists, with its
#      side-effects cache off: the cache would restore this package, not what its postinstall
#      changes elsewhere); pnpm's store, whose files its node_modules hard-link, keeps whisper.rn
#      as npm gave it (the scripts write new files).
# Peer dependencies (react, react-native) are not installed (--legacy-peer-deps); llama.rn's own
# postinstall download is skipped (RNLLAMA_SKIP_POSTINSTALL=1; no GitHub here).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
integration="$root/integrations/react-native"
source "$integration/test/common.sh"
work="$root/build/npm-test"
rm -rf "$work"
mkdir -p "$work"
tarball=$("$root/scripts/npm-pack.sh" "$work")
echo "npm-test: $(basename "$tarball"): $(du -k "$tarball" | cut -f1) kB packed, $(tar -tzf "$tarball" | wc -l) files"
export RNLLAMA_SKIP_POSTINSTALL=1
npm_install() {
    (cd "$app" && npm install --no-audit --no-fund --legacy-peer-deps --loglevel=error "$@")
}

fail() {
    echo "npm-test: $*" >&2
    exit 1
}

# scratch_app DIR: a React Native app's files that the package touches
scratch_app() {
    mkdir -p "$1/android" "$1/ios"
    echo '{ "name": "scratch-app", "version": "1.0.0", "private": true }' > "$1/package.json"
    echo "rootProject.name = 'scratch-app'" > "$1/android/settings.gradle"
    echo "org.gradle.jvmargs=-Xmx2048m" > "$1/android/gradle.properties"
    echo "# the app's Podfile" > "$1/ios/Podfile"
}

# check_built RELEASE: the installed package's Android build configured in place, its archive
# built (test/android-on-linux.sh --installed)
check_built() {
    wsp_release "$1"
    "$integration/test/android-on-linux.sh" --installed "$app/node_modules/$wsp_package" \
        | grep '^android-on-linux: .*(installed)' | sed "s/^android-on-linux: /npm-test: /"
}

# check_applied RELEASE: the installed package of RELEASE carries the integration
check_applied() {
    local release=$1 dir verdict included
    wsp_release "$release"
    dir="$app/node_modules/$wsp_package"
    [ "$(wsp_json_string "$dir/package.json" version)" = "$wsp_version" ] || fail "$release is not installed"
    # (pnpm's node_modules reach the package through a symbolic link)
    included=$(sed -n 's/^include("\(.*wsp-ggml-backend\.cmake\)")$/\1/p' "$dir/$wsp_android_cmake")
    [ -n "$included" ] && [ "$(readlink -f "$included")" = "$(readlink -f \
        "$app/node_modules/wsp-ggml-backend/integrations/react-native/android/wsp-ggml-backend.cmake")" ] \
        || fail "$release: $wsp_android_cmake does not include the package's wsp-ggml-backend.cmake"
    if [ -n "$wsp_gradle_switch" ]; then
        grep -qF "findProperty(\"$wsp_gradle_switch\") ?: \"true\"" "$dir/android/build.gradle" \
            || fail "$release: android/build.gradle does not build from source by default"
    fi
    verdict=$("$integration/test/podspec-check.sh" "$(reference "$release")" "$dir") || fail "$release: the podspec check failed"
    echo "npm-test: $release: $wsp_android_cmake includes the swap; podspec: $verdict"
}

# fingerprint: what the package changes, for comparing two installs
fingerprint() {
    (cd "$app" && cat node_modules/*.rn/android/src/main/CMakeLists.txt node_modules/*.rn/*.podspec \
        android/settings.gradle ios/Podfile | sha256sum | cut -d' ' -f1)
}

# 1. the first install
app="$work/app"
scratch_app "$app"
npm_install whisper.rn@0.4.3 "$tarball" | sed 's/^/  /'
check_applied 0.4.3
check_built 0.4.3
grep -q '^// wsp-ggml-backend: ' "$app/android/settings.gradle" || fail "settings.gradle has no hook"
grep -q '^# wsp-ggml-backend: ' "$app/ios/Podfile" || fail "the Podfile has no hook"
before=$(fingerprint)
npm_install >/dev/null
[ "$(fingerprint)" = "$before" ] || fail "a second npm install changed the files"
echo "npm-test: a second npm install changes nothing"

# 2. upgrades, applied again by the Podfile's hook at pod install
for release in $("$root/scripts/release-table.sh" newest --all); do
    [ "$release" != 0.4.3 ] || continue
    wsp_release "$release"
    npm_install "$wsp_package@$wsp_version" >/dev/null
    (cd "$app/ios" && ruby Podfile) | sed 's/^/  /'
    check_applied "$release"
    check_built "$release"
done

# the package removed and whisper.rn reinstalled: whisper.rn as npm gave it, the hooks inert
removed="$work/removed"
cp -R "$app" "$removed"
(cd "$removed" && npm uninstall --no-audit --no-fund --legacy-peer-deps --loglevel=error wsp-ggml-backend >/dev/null \
    && rm -rf node_modules/whisper.rn && npm install --no-audit --no-fund --legacy-peer-deps --loglevel=error >/dev/null)
(cd "$removed/ios" && ruby Podfile) || fail "without the package, the Podfile's hook fails"
! grep -rqF wsp-ggml-backend "$removed/node_modules/whisper.rn/android" "$removed/node_modules/whisper.rn/whisper-rn.podspec" \
    || fail "without the package, the reinstalled whisper.rn has the integration"
echo "npm-test: the package removed and whisper.rn reinstalled: whisper.rn as npm gave it; the Podfile's hook does nothing"

# 3. the Gradle property that turns the library off
echo "wspGgmlBackendEnabled=false" >> "$app/android/gradle.properties"
"$integration/test/android-on-linux.sh" --installed "$app/node_modules/whisper.rn" --expect-off | grep '^android-on-linux' | sed 's/^/  /'

# 4. a release the table does not serve
app="$work/unserved"
scratch_app "$app"
unserved=0.6.0-rc.2
# (--foreground-scripts: npm shows what the postinstall says; it hides it otherwise, and the
# user reads it when the app's hooks run at the next build)
npm_install --foreground-scripts "whisper.rn@$unserved" "$tarball" > "$work/unserved.log" 2>&1 \
    || fail "the install of whisper.rn $unserved failed: $(cat "$work/unserved.log")"
(cd "$app/ios" && ruby Podfile) > "$work/unserved-hook.log" 2>&1
expected="whisper.rn $unserved is not served; served releases: $(wsp_served whisper.rn)"
for log in unserved unserved-hook; do
    grep -qF "$expected" "$work/$log.log" || fail "whisper.rn $unserved: $log.log does not say it is not served: $(cat "$work/$log.log")"
done
! grep -rqF wsp-ggml-backend "$app/node_modules/whisper.rn/android" "$app/node_modules/whisper.rn/whisper-rn.podspec" \
    || fail "whisper.rn $unserved was changed"
echo "npm-test: whisper.rn $unserved: installed, refused at install and by the Podfile's hook, left as npm gave it: $expected"

# 5. the Expo config plugin
expo="$work/expo"
scratch_app "$expo"
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
grep -qx 'rnllamaBuildFromSource=true' "$expo/android/gradle.properties" || fail "Expo: no rnllamaBuildFromSource=true"
grep -q '^// wsp-ggml-backend: ' "$expo/android/settings.gradle" || fail "Expo: settings.gradle has no hook"
for name in RNWHISPER_BUILD_FROM_SOURCE RNLLAMA_BUILD_FROM_SOURCE; do
    grep -qF "ENV[\"$name\"] ||= \"1\"" "$expo/ios/Podfile" || fail "Expo: the Podfile does not set $name"
done
grep -q '^# wsp-ggml-backend: ' "$expo/ios/Podfile" || fail "Expo: the Podfile has no hook"
echo "npm-test: Expo plugin: gradle.properties, settings.gradle and the Podfile set; applied twice, the same files"

# 6. yarn and pnpm, fetched from the npm registry by npx
for client in yarn pnpm; do
    app="$work/$client"
    scratch_app "$app"
    case "$client" in
        yarn) add=(npx --yes yarn@1.22.22 add --registry https://registry.npmjs.org) ;;
        pnpm) add=(npx --yes pnpm@9.15.0 add --config.auto-install-peers=false --config.side-effects-cache=false)
              sed -i 's/"private": true }/"private": true, "pnpm": { "onlyBuiltDependencies": ["wsp-ggml-backend"] } }/' "$app/package.json" ;;
    esac
    (cd "$app" && "${add[@]}" whisper.rn@0.7.4 "file:$tarball" > "$work/$client.log" 2>&1) || fail "$client: $(cat "$work/$client.log")"
    check_applied 0.7.4 | sed "s/^npm-test: /npm-test: $client: /"
    for file in android/src/main/CMakeLists.txt whisper-rn.podspec; do
        [ "$(stat -c %h "$app/node_modules/whisper.rn/$file")" -eq 1 ] || fail "$client: $file is still shared with the store"
    done
done
echo "npm-test: yarn and pnpm: applied; the changed files are the app's own (pnpm's store untouched)"
