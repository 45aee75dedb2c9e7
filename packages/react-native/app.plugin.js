// The Expo config plugin (app.json: "plugins": ["wsp-ggml-backend"]). At `npx expo prebuild` it
// writes the hooks that apply the library before every build (android/settings.gradle or
// settings.gradle.kts, ios/Podfile), sets wspGgmlBackendEnabled in android/gradle.properties
// (false turns the library off on Android without uninstalling it), and applies the library to
// whisper.rn and llama.rn, which then build their C++ from source with it (their own prebuilt
// libraries carry their own backend layer). Options: { enabled: false } writes the property false.
// Applying it twice gives the same project.
'use strict';

const fs = require('fs');
const path = require('path');
const { withDangerousMod, withGradleProperties, withSettingsGradle } = require('@expo/config-plugins');
const { HOOKS, apply, withHook } = require('./index');

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
    return mod;
  });
  return withSettingsGradle(config, (mod) => {
    const hook = mod.modResults.language === 'kt' ? HOOKS.kotlin : HOOKS.groovy;
    mod.modResults.contents = withHook(mod.modResults.contents, hook);
    return mod;
  });
}

function withIos(config) {
  return withDangerousMod(config, [
    'ios',
    (mod) => {
      const podfile = path.join(mod.modRequest.platformProjectRoot, 'Podfile');
      fs.writeFileSync(podfile, withHook(fs.readFileSync(podfile, 'utf8'), HOOKS.podfile));
      apply(mod.modRequest.projectRoot);
      return mod;
    },
  ]);
}

module.exports = function withWspGgmlBackend(config, options = {}) {
  return withIos(withAndroid(config, options.enabled !== false));
};
