// wsp-ggml-backend for React Native apps: applies the library to whisper.rn and llama.rn
// (integrations/react-native: the Android CMake block, the podspec blocks), and installs the
// app's hooks that apply it again before every native build (Gradle's settings, the Podfile), so
// that a reinstall or an upgrade of either package is picked up without patch-package. What it
// writes finds this package as Node resolves one (in a node_modules folder above the file), so
// nothing absolute is written and nothing is left acting once the package is uninstalled. Every
// block it writes is marked, and replaced when it writes it again: the files are the same after
// any number of runs.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const NAME = 'wsp-ggml-backend';
const PACKAGES = ['whisper.rn', 'llama.rn'];
const INTEGRATION = path.join(__dirname, 'integrations', 'react-native');

// The folder of the installed package NAME as Node finds it from FROM (node_modules folders
// upwards), or null. (Not require.resolve: a package's "exports" may hide its package.json.)
function findInstalled(name, from) {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) {
      return candidate;
    }
    if (path.dirname(dir) === dir) {
      return null;
    }
  }
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

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

// The folders matching a workspaces pattern of package.json ("apps/*", "packages/mobile"; a `*`
// stands for one folder name, `**` for any number of them).
function expandWorkspace(root, pattern) {
  let dirs = [root];
  for (const part of pattern.split('/').filter((p) => p !== '' && p !== '.')) {
    const next = [];
    for (const dir of dirs) {
      if (part === '**') {
        const stack = [dir];
        while (stack.length > 0) {
          const current = stack.pop();
          next.push(current);
          for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
            if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) {
              stack.push(path.join(current, entry.name));
            }
          }
        }
      } else if (part.includes('*')) {
        const regex = new RegExp(`^${part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
        for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
          if (entry.isDirectory() && regex.test(entry.name)) {
            next.push(path.join(dir, entry.name));
          }
        }
      } else if (fs.existsSync(path.join(dir, part))) {
        next.push(path.join(dir, part));
      }
    }
    dirs = next;
  }
  return dirs;
}

// The app folders under ROOT: ROOT itself and, in a monorepo (package.json's "workspaces", as npm
// and yarn read them, or pnpm-workspace.yaml's "packages"), each workspace with a package.json.
function appFolders(root) {
  const pkg = readJson(path.join(root, 'package.json')) || {};
  let patterns = Array.isArray(pkg.workspaces) ? pkg.workspaces : (pkg.workspaces && pkg.workspaces.packages) || [];
  const pnpmWorkspace = path.join(root, 'pnpm-workspace.yaml');
  if (fs.existsSync(pnpmWorkspace)) {
    const yaml = fs.readFileSync(pnpmWorkspace, 'utf8');
    const block = yaml.match(/^packages:\s*\n((?:[ \t]+-.*\n?)+)/m);
    if (block) {
      patterns = patterns.concat(block[1].split('\n').map((line) => line.replace(/^\s*-\s*['"]?|['"]?\s*$/g, '')).filter(Boolean));
    }
  }
  const folders = [root];
  for (const pattern of patterns.filter((p) => !p.startsWith('!'))) {
    for (const dir of expandWorkspace(root, pattern)) {
      if (fs.existsSync(path.join(dir, 'package.json')) && !folders.includes(dir)) {
        folders.push(dir);
      }
    }
  }
  return folders;
}

// Runs one of the integration's scripts on a package folder: { ok, output }.
function runScript(script, packageDir) {
  const result = spawnSync('bash', [path.join(INTEGRATION, script), packageDir], { encoding: 'utf8' });
  if (result.error) {
    return { ok: false, output: `${script}: ${result.error.message}` };
  }
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

// Applies the library to each package the app (or a workspace of it) has:
// [{ name, dir, applied, messages }]. A release the release table does not serve is refused by
// the scripts, which then change nothing.
function apply(root = appRoot()) {
  const results = [];
  const seen = new Set();
  for (const folder of appFolders(root)) {
    for (const name of PACKAGES) {
      const dir = findInstalled(name, folder);
      if (dir === null || seen.has(fs.realpathSync(dir))) {
        continue;
      }
      seen.add(fs.realpathSync(dir));
      const android = runScript(path.join('android', 'apply.sh'), dir);
      const ios = android.ok ? runScript(path.join('ios', 'apply.sh'), dir) : { ok: false, output: '' };
      results.push({
        name,
        dir,
        applied: android.ok && ios.ok,
        messages: [android.output, ios.output].filter((text) => text !== ''),
      });
    }
  }
  return results;
}

// The first lines of a hook, in the file's comments
function hookHeader(comment) {
  return [
    `${comment} ${NAME} begin: before every build, applies ${NAME} to whisper.rn and llama.rn while a`,
    `${comment} node_modules folder above this one holds it; once it is gone, this does nothing.`,
    `${comment} Written by ${NAME}, replaced when it writes it again.`,
  ];
}

// The app's hooks, appended to the file (in Gradle's settings after pluginManagement {} and
// plugins {}, which must come first): before every build they run `wsp-ggml-backend apply` from
// the package a node_modules folder above the app's android/ or ios/ holds, and do nothing once
// none does.
const HOOKS = {
  groovy: {
    files: [path.join('android', 'settings.gradle')],
    comment: '//',
    text: [
      ...hookHeader('//'),
      'for (def dir = rootDir; dir != null; dir = dir.parentFile) {',
      `    def bin = new File(dir, "node_modules/${NAME}/bin/${NAME}.js")`,
      '    if (bin.isFile()) {',
      '        def node = new ProcessBuilder("node", bin.path, "apply", "--quiet", "--app", rootDir.parentFile.path)',
      '            .directory(rootDir.parentFile).redirectErrorStream(true).start()',
      '        def output = node.inputStream.text.trim()',
      '        node.waitFor()',
      '        if (output) println(output)',
      '        break',
      '    }',
      '}',
      `// ${NAME} end`,
    ],
  },
  kotlin: {
    files: [path.join('android', 'settings.gradle.kts')],
    comment: '//',
    text: [
      ...hookHeader('//'),
      'generateSequence(rootDir) { it.parentFile }',
      `    .map { java.io.File(it, "node_modules/${NAME}/bin/${NAME}.js") }`,
      '    .firstOrNull { it.isFile }',
      '    ?.let { bin ->',
      '        val node = ProcessBuilder("node", bin.path, "apply", "--quiet", "--app", rootDir.parentFile.path)',
      '            .directory(rootDir.parentFile).redirectErrorStream(true).start()',
      '        val output = node.inputStream.bufferedReader().readText().trim()',
      '        node.waitFor()',
      '        if (output.isNotEmpty()) println(output)',
      '    }',
      `// ${NAME} end`,
    ],
  },
  podfile: {
    files: [path.join('ios', 'Podfile')],
    comment: '#',
    text: [
      ...hookHeader('#'),
      'require "pathname"',
      `wsp_ggml_backend = Pathname(__dir__).ascend.map { |dir| dir + "node_modules/${NAME}/bin/${NAME}.js" }.find(&:file?)`,
      'system("node", wsp_ggml_backend.to_s, "apply", "--quiet", "--app", File.dirname(__dir__)) if wsp_ggml_backend',
      `# ${NAME} end`,
    ],
  },
};

// TEXT without the blocks written earlier (from a "<comment> wsp-ggml-backend begin" line to the
// "<comment> wsp-ggml-backend end" line, and the blank lines just before), then the hook, after a
// blank line. The same as TEXT when it already ends with the hook.
function withHook(text, hook) {
  const begin = `${hook.comment} ${NAME} begin`;
  const end = `${hook.comment} ${NAME} end`;
  const kept = [];
  let inside = false;
  for (const line of text.split('\n')) {
    if (inside) {
      inside = !line.trim().startsWith(end);
    } else if (line.trim().startsWith(begin)) {
      inside = true;
      while (kept.length > 0 && kept[kept.length - 1].trim() === '') {
        kept.pop();
      }
    } else {
      kept.push(line);
    }
  }
  while (kept.length > 0 && kept[kept.length - 1].trim() === '') {
    kept.pop();
  }
  return `${kept.join('\n')}\n\n${hook.text.join('\n')}\n`;
}

// The files of the app folders under ROOT (appFolders) that take a hook: [{ file, hook }]
function hookFiles(root) {
  const found = [];
  for (const folder of appFolders(root)) {
    for (const hook of Object.values(HOOKS)) {
      for (const name of hook.files) {
        const file = path.join(folder, name);
        if (fs.existsSync(file)) {
          found.push({ file, hook });
        }
      }
    }
  }
  return found;
}

// Installs the hooks in every app folder under ROOT. Returns the files changed, relative to ROOT.
function installHooks(root = appRoot()) {
  const changed = [];
  for (const { file, hook } of hookFiles(root)) {
    const before = fs.readFileSync(file, 'utf8');
    const after = withHook(before, hook);
    if (after !== before) {
      fs.writeFileSync(file, after);
      changed.push(path.relative(root, file));
    }
  }
  return changed;
}

// The files under ROOT that take a hook and lack it (relative to ROOT): where this package's
// install script did not run.
function missingHooks(root = appRoot()) {
  return hookFiles(root)
    .filter(({ file, hook }) => !fs.readFileSync(file, 'utf8').includes(`${hook.comment} ${NAME} begin`))
    .map(({ file }) => path.relative(root, file));
}

module.exports = { NAME, PACKAGES, HOOKS, appRoot, appFolders, findInstalled, apply, installHooks, missingHooks, withHook };
