// wsp-ggml-backend for React Native apps: applies the library to whisper.rn and llama.rn in the
// app's node_modules (integrations/react-native: the Android CMake include, the podspec block),
// and installs the app's hooks that apply it again before every native build (Gradle's settings,
// the Podfile), so that a reinstall or an upgrade of either package is picked up without
// patch-package. Everything here is idempotent.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const PACKAGES = ['whisper.rn', 'llama.rn'];
const INTEGRATION = path.join(__dirname, 'integrations', 'react-native');
const MARKER = 'wsp-ggml-backend';

// The app's root: npm's INIT_CWD (where the install was started), else the folder above the
// outermost node_modules this package sits in, else the current folder.
function appRoot() {
  const candidates = [process.env.INIT_CWD];
  const parts = __dirname.split(path.sep);
  const modules = parts.indexOf('node_modules');
  if (modules > 0) {
    candidates.push(parts.slice(0, modules).join(path.sep) || path.sep);
  }
  candidates.push(process.cwd());
  return candidates.find(
    (dir) => dir && fs.existsSync(path.join(dir, 'package.json')) && !dir.split(path.sep).includes('node_modules'),
  ) || process.cwd();
}

// Runs one of the integration's scripts on a package folder: { ok, output }.
function runScript(script, packageDir) {
  const result = spawnSync('bash', [path.join(INTEGRATION, script), packageDir], { encoding: 'utf8' });
  if (result.error) {
    return { ok: false, output: `${script}: ${result.error.message}` };
  }
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

// Applies the library to each package the app has: [{ name, dir, applied, messages }]. A release
// the release table does not serve is refused by the scripts, which then change nothing.
function apply(root = appRoot()) {
  const results = [];
  for (const name of PACKAGES) {
    const dir = path.join(root, 'node_modules', name);
    if (!fs.existsSync(path.join(dir, 'package.json'))) {
      continue;
    }
    const android = runScript(path.join('android', 'apply.sh'), dir);
    const ios = android.ok ? runScript(path.join('ios', 'apply.sh'), dir) : { ok: false, output: '' };
    results.push({
      name,
      dir,
      applied: android.ok && ios.ok,
      messages: [android.output, ios.output].filter((text) => text !== ''),
    });
  }
  return results;
}

// The app's hooks: a guarded line in android/settings.gradle and in ios/Podfile that runs
// `wsp-ggml-backend apply` before Gradle configures and before pod install, and does nothing once
// this package is gone. Returns the files changed.
const HOOKS = {
  gradle: {
    file: path.join('android', 'settings.gradle'),
    text: [
      `// ${MARKER}: applies itself to whisper.rn and llama.rn in node_modules before every build`,
      'def wspGgmlBackend = new File(rootDir, "../node_modules/wsp-ggml-backend/bin/wsp-ggml-backend.js")',
      'if (wspGgmlBackend.exists()) {',
      '    ["node", wspGgmlBackend.path, "apply", "--quiet"].execute(null, new File(rootDir, "..")).waitForProcessOutput(System.out, System.err)',
      '}',
    ],
  },
  podfile: {
    file: path.join('ios', 'Podfile'),
    text: [
      `# ${MARKER}: applies itself to whisper.rn and llama.rn in node_modules before every pod install`,
      'wsp_ggml_backend = File.join(__dir__, "../node_modules/wsp-ggml-backend/bin/wsp-ggml-backend.js")',
      'system("node", wsp_ggml_backend, "apply", "--quiet", chdir: File.join(__dir__, "..")) if File.exist?(wsp_ggml_backend)',
    ],
  },
};

// The text with the hook first (after the marker's absence was checked), or null when it has it.
function withHook(text, hook) {
  if (text.includes(`${MARKER}:`)) {
    return null;
  }
  return `${hook.text.join('\n')}\n\n${text}`;
}

function installHooks(root = appRoot()) {
  const changed = [];
  for (const hook of Object.values(HOOKS)) {
    const file = path.join(root, hook.file);
    if (!fs.existsSync(file)) {
      continue;
    }
    const text = withHook(fs.readFileSync(file, 'utf8'), hook);
    if (text !== null) {
      fs.writeFileSync(file, text);
      changed.push(hook.file);
    }
  }
  return changed;
}

module.exports = { PACKAGES, HOOKS, appRoot, apply, installHooks, withHook };
