// @toolhost/host's preinstall. Installed as a package, npm runs every package's preinstall before
// any package's install script, so a Node that is too old stops here, with one line, instead of in
// isolated-vm's native build (prebuilt for Node 24 and later only) with a compiler error. In this
// checkout the workspace packages are links, whose scripts run after their dependencies': there
// `.npmrc` (engine-strict) stops npm first, on the root's `engines`.
// Plain ES5 on purpose: it must parse on any Node that can run npm.
var major = Number(String(process.versions.node).split('.')[0]);
if (!(major >= 24)) {
  console.error(
    'toolhost needs Node.js 24 or later, and this is ' +
      process.version +
      ': install Node 24 LTS (https://nodejs.org/en/download, `nvm install 24`, or ' +
      '`npm install --prefix ~/node24 node@24` and put ~/node24/node_modules/node/bin first on PATH), ' +
      'then run npm install again.',
  );
  process.exit(1);
}
