#!/usr/bin/env node
'use strict';

const { NAME, apply, appRoot, installHooks } = require('..');
const { version } = require('../package.json');

const USAGE = `usage: ${NAME} [install|apply|hooks|postinstall] [--app DIR] [--quiet]
       ${NAME} --help | --version

  install      applies the library to whisper.rn and llama.rn and adds the app's hooks (what
               this package's install script does; run it when the package manager did not)
  apply        applies the library to whisper.rn and llama.rn (what the hooks run before every
               build); exits 1 when a package was refused (a release this package does not serve)
  hooks        adds the hooks to the app's android/settings.gradle(.kts) and ios/Podfile, and to
               those of the workspaces of a monorepo
  postinstall  install, as this package's own install script: never fails the install

  --app DIR    the app's folder (default: where the package manager was started, else the
               folder holding node_modules)
  --quiet      says nothing when every package was applied`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
if (args.includes('--version')) {
  console.log(version);
  process.exit(0);
}
const command = args[0] && !args[0].startsWith('--') ? args.shift() : 'apply';
let root = null;
let quiet = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--app' && i + 1 < args.length) {
    root = args[++i];
  } else if (args[i] === '--quiet') {
    quiet = true;
  } else {
    console.error(`${NAME}: unknown argument ${args[i]}\n${USAGE}`);
    process.exit(2);
  }
}
if (!['install', 'apply', 'hooks', 'postinstall'].includes(command)) {
  console.error(`${NAME}: unknown command ${command}\n${USAGE}`);
  process.exit(2);
}
root = root || appRoot();

let refused = false;
if (command !== 'hooks') {
  const results = apply(root);
  if (results.length === 0 && !quiet) {
    console.log(`${NAME}: neither whisper.rn nor llama.rn is installed for ${root}: nothing to apply`);
  }
  for (const result of results) {
    refused = refused || !result.applied;
    if (!result.applied || !quiet) {
      const verdict = result.applied ? 'applied' : 'not applied, the package left as it is';
      console.log(`${NAME}: ${result.name}: ${verdict}`);
      for (const message of result.messages) {
        console.log(message.replace(/^/gm, '  '));
      }
    }
  }
}
if (command !== 'apply') {
  for (const file of installHooks(root)) {
    console.log(`${NAME}: ${file} now applies the library before every build`);
  }
}
process.exit(refused && command !== 'postinstall' ? 1 : 0);
