#!/usr/bin/env node
// wsp-ggml-backend [apply|hooks|postinstall] [--app DIR] [--quiet]
//   apply        applies the library to whisper.rn and llama.rn in the app's node_modules (what
//                the app's hooks run before every build); exits 1 when a package was refused
//   hooks        adds the hooks to the app's android/settings.gradle and ios/Podfile
//   postinstall  both, as this package's own postinstall: never fails the install
'use strict';

const { apply, appRoot, installHooks } = require('..');

const args = process.argv.slice(2);
const command = args[0] && !args[0].startsWith('--') ? args.shift() : 'apply';
let root = null;
let quiet = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--app' && i + 1 < args.length) {
    root = args[++i];
  } else if (args[i] === '--quiet') {
    quiet = true;
  } else {
    console.error(`wsp-ggml-backend: unknown argument ${args[i]}`);
    process.exit(2);
  }
}
if (!['apply', 'hooks', 'postinstall'].includes(command)) {
  console.error('usage: wsp-ggml-backend [apply|hooks|postinstall] [--app DIR] [--quiet]');
  process.exit(2);
}
root = root || appRoot();

let refused = false;
if (command === 'apply' || command === 'postinstall') {
  const results = apply(root);
  if (results.length === 0 && !quiet) {
    console.log(`wsp-ggml-backend: neither whisper.rn nor llama.rn in ${root}/node_modules: nothing to apply`);
  }
  for (const result of results) {
    refused = refused || !result.applied;
    if (!result.applied || !quiet) {
      const verdict = result.applied ? 'applied' : 'not applied, the package left as it is';
      console.log(`wsp-ggml-backend: ${result.name}: ${verdict}`);
      for (const message of result.messages) {
        console.log(message.replace(/^/gm, '  '));
      }
    }
  }
}
if (command === 'hooks' || command === 'postinstall') {
  for (const file of installHooks(root)) {
    console.log(`wsp-ggml-backend: ${file} now applies the library before every build`);
  }
}
process.exit(refused && command === 'apply' ? 1 : 0);
