'use strict';
// The Node launcher that node_modules/.bin/vx and vxd run until @vzn/vx's
// install script replaces them with the native binaries. Package managers
// that run no install scripts they were not told to trust (pnpm, bun) keep
// it: it runs the platform package's binary with the same arguments,
// standard streams, environment and exit status, at the cost of starting
// Node first. VX_NPM_LAUNCHER tells the binary (vx doctor) it came this way.

const { spawn } = require('child_process');
const { nativeBinary } = require('./platform');

const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];

module.exports = function launch(name, launcher) {
  let bin;
  try {
    bin = nativeBinary(name);
  } catch (err) {
    process.stderr.write(`${name}: ${err.message}\n`);
    process.exit(1);
  }
  const child = spawn(bin, process.argv.slice(2), {
    stdio: 'inherit',
    env: { ...process.env, VX_NPM_LAUNCHER: launcher },
  });
  // A signal sent to the launcher alone (an MCP client stopping `vx mcp`)
  // reaches the binary too; one from the terminal reaches both anyway.
  for (const sig of forwarded) process.on(sig, () => child.kill(sig));
  child.on('error', (err) => {
    process.stderr.write(`${name}: cannot start ${bin}: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      // Die of the same signal, so the caller sees what the binary saw.
      for (const sig of forwarded) process.removeAllListeners(sig);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code);
  });
};
