// React Native's CLI reads this file when it lists the app's native modules (its autolinking: at
// every pod install, and in Gradle's settings whenever the app's package.json or lock file
// changed). This package has no native module of its own (no platform to link). Where the package
// manager did not run its install script (pnpm without allowBuilds, npm's allowScripts denying it,
// --ignore-scripts), the app's hooks are missing: reading this file then does what the install
// script does, and says so on stderr (stdout is the CLI's JSON).
'use strict';

const { NAME, apply, appRoot, installHooks, missingHooks } = require('./index');

const root = appRoot();
const missing = missingHooks(root);
if (missing.length > 0) {
  const lines = [`${NAME}: its install script did not run (${missing.join(', ')} without its hook); done now, as \`npx ${NAME} install\` does:`];
  for (const result of apply(root)) {
    lines.push(`  ${result.name}: ${result.applied ? 'applied' : 'not applied, the package left as it is'}`);
    lines.push(...result.messages.map((message) => message.replace(/^/gm, '    ')));
  }
  for (const file of installHooks(root)) {
    lines.push(`  ${file} now applies the library before every build`);
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}

module.exports = { dependency: { platforms: { android: null, ios: null } } };
