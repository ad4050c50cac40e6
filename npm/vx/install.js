'use strict';
// @vzn/vx's postinstall. Where the package manager runs it, it puts this
// platform's native vx and vxd in place of the Node launchers in bin/, so
// node_modules/.bin/vx starts the binary itself with no Node start-up on
// every call. Where it does not run (pnpm and bun run only the scripts they
// were told to trust), or where it declines below, the launchers stay and
// work. It never fails the install: the launcher reports any problem when
// vx is run.

const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { nativeBinary, binDir } = require('./lib/platform');

// declined is why the launchers must stay, or '' when they may go.
function declined() {
  const agent = process.env.npm_config_user_agent || '';
  if (process.platform === 'win32') return 'Windows runs bin entries through .cmd shims';
  // pnpm writes node_modules/.bin/vx as a shell script that runs `node` on
  // the launcher (it read its #!/usr/bin/env node line when it linked the
  // package): a native binary there would be run by node.
  if (agent.startsWith('pnpm/')) return 'pnpm runs bin entries through node';
  // Yarn 2+ (Plug'n'Play) runs bin entries through node as well.
  if (/^yarn\/([2-9]|\d\d)/.test(agent)) return 'Yarn 2+ runs bin entries through node';
  return '';
}

// place puts the native binary `name` at bin/name: linked (or copied) to a
// temporary name beside it, checked to run here, then renamed over the
// launcher, so bin/name is always one whole file.
function place(name) {
  const src = nativeBinary(name);
  const dest = path.join(binDir, name);
  const tmp = path.join(binDir, `.${name}.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });
  try {
    fs.linkSync(src, tmp);
  } catch {
    fs.copyFileSync(src, tmp);
  }
  try {
    fs.chmodSync(tmp, 0o755);
    const out = execFileSync(tmp, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (!out.startsWith(`${name} `)) throw new Error(`${name} --version said ${JSON.stringify(out)}`);
    fs.renameSync(tmp, dest);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

function main() {
  const why = declined();
  if (why) {
    console.log(`@vzn/vx: keeping the Node launchers (${why}).`);
    return;
  }
  try {
    // vxd first: a vx that replaced its launcher finds vxd beside itself.
    place('vxd');
    place('vx');
  } catch (err) {
    console.log(`@vzn/vx: keeping the Node launchers: ${err.message}`);
  }
}

main();
