'use strict';
// Which of @vzn/vx's platform packages serves this machine, and where its
// binaries are. The launchers (bin/vx, bin/vxd) and the install script
// share it.

const path = require('path');

// Node's names for an OS and a CPU, as the platform packages' "os" and
// "cpu" fields spell them, to the package built for that pair.
const packages = {
  'linux x64': '@vzn/vx-linux-x64',
  'linux arm64': '@vzn/vx-linux-arm64',
  'darwin x64': '@vzn/vx-darwin-x64',
  'darwin arm64': '@vzn/vx-darwin-arm64',
  'win32 x64': '@vzn/vx-win32-x64',
};

// exeSuffix ends a binary's file name: .exe in the Windows package.
const exeSuffix = process.platform === 'win32' ? '.exe' : '';

// platformPackage is the package name for this OS and CPU; it throws,
// saying which pairs exist, on any other.
function platformPackage() {
  const name = packages[`${process.platform} ${process.arch}`];
  if (!name) {
    const known = Object.keys(packages).map((k) => k.replace(' ', '/')).join(', ');
    throw new Error(`vx has no build for ${process.platform}/${process.arch} (it has ${known})`);
  }
  return name;
}

// nativeBinary is the absolute path of the binary `name` (vx or vxd) of
// this platform's package, wherever the package manager put it. It throws,
// with what to do, when the package is not installed.
function nativeBinary(name) {
  const pkg = platformPackage();
  try {
    return require.resolve(`${pkg}/bin/${name}${exeSuffix}`);
  } catch (err) {
    throw new Error(
      `${pkg}, the package holding the ${name} binary for this machine, is not installed. ` +
        `@vzn/vx lists it in optionalDependencies: install again without omitting optional ` +
        `dependencies (npm --omit=optional, --no-optional and pnpm --no-optional skip it).`,
    );
  }
}

module.exports = { packages, platformPackage, nativeBinary, binDir: path.join(__dirname, '..', 'bin') };
