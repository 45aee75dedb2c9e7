// The Expo config plugin (app.json: "plugins": ["wsp-ggml-backend"]). At `npx expo prebuild` it
// sets what the native builds need and applies the library:
//   Android  gradle.properties: wspGgmlBackendEnabled=true (false turns the library off without
//            uninstalling it), rnllamaBuildFromSource=true (llama.rn builds its C++); the hook in
//            settings.gradle that applies the library before every build
//   iOS      Podfile: RNWHISPER_BUILD_FROM_SOURCE and RNLLAMA_BUILD_FROM_SOURCE default to 1 (the
//            packages build their C++, with this library's layer), and the hook that applies the
//            library before every pod install
// and applies it to whisper.rn and llama.rn in node_modules. Options: { enabled: false } keeps
// the Gradle property false and the Podfile's switches unset. Applying it twice gives the same
// project.
'use strict';

const fs = require('fs');
const path = require('path');
const { withDangerousMod, withGradleProperties, withSettingsGradle } = require('@expo/config-plugins');
const { HOOKS, apply, withHook } = require('./index');

const PODFILE_SWITCHES = ['RNWHISPER_BUILD_FROM_SOURCE', 'RNLLAMA_BUILD_FROM_SOURCE'];

function setGradleProperty(properties, key, value) {
  const existing = properties.find((item) => item.type === 'property' && item.key === key);
  if (existing) {
    existing.value = value;
  } else {
    properties.push({ type: 'property', key, value });
  }
}

function withAndroid(config, enabled) {
  config = withGradleProperties(config, (mod) => {
    setGradleProperty(mod.modResults, 'wspGgmlBackendEnabled', String(enabled));
    if (enabled) {
      setGradleProperty(mod.modResults, 'rnllamaBuildFromSource', 'true');
    }
    return mod;
  });
  return withSettingsGradle(config, (mod) => {
    mod.modResults.contents = withHook(mod.modResults.contents, HOOKS.gradle) ?? mod.modResults.contents;
    return mod;
  });
}

function withIos(config, enabled) {
  return withDangerousMod(config, [
    'ios',
    (mod) => {
      const podfile = path.join(mod.modRequest.platformProjectRoot, 'Podfile');
      let text = fs.readFileSync(podfile, 'utf8');
      if (enabled) {
        const missing = PODFILE_SWITCHES.filter((name) => !text.includes(`ENV["${name}"] ||=`));
        if (missing.length > 0) {
          text = `${missing.map((name) => `ENV["${name}"] ||= "1"  # wsp-ggml-backend`).join('\n')}\n${text}`;
        }
      }
      text = withHook(text, HOOKS.podfile) ?? text;
      fs.writeFileSync(podfile, text);
      apply(mod.modRequest.projectRoot);
      return mod;
    },
  ]);
}

module.exports = function withWspGgmlBackend(config, options = {}) {
  const enabled = options.enabled !== false;
  return withIos(withAndroid(config, enabled), enabled);
};
