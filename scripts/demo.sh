#!/usr/bin/env bash
# The main job on the bundled example workspace: cold and warm runs, an
# edit and `vx why`, the daemon, MCP answers through the stdio shim, and
# `vxd status`. Runs in a temporary copy; leaves nothing running.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/bin"
work=$(mktemp -d)
trap '"$bin/vxd" stop --root "$work/demo" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cp -r "$here/examples/demo" "$work/demo"
cd "$work/demo"
git init -q && git add -A && git -c user.email=demo@vx -c user.name=demo commit -qm "demo workspace"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "vx show: what can I run here"
"$bin/vx" show

step "cold run: vx run build test"
"$bin/vx" run build test

step "warm run: everything restored from the cache"
"$bin/vx" run build test

step "edit packages/ui/src/slider.js, run again: ui and web re-run"
echo "export const version = 2;" >> packages/ui/src/slider.js
"$bin/vx" run build test

step "vx why web#build: the upstream root and the file that moved"
"$bin/vx" why web#build

step "vx last --list"
"$bin/vx" last --list

step "vxd start, then MCP through the shim (vx mcp): initialize, listTasks, whyDidThisRerun, getRunHistory"
"$bin/vxd" start
{
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"listTasks","arguments":{"project":"web"}}}'
  echo '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whyDidThisRerun","arguments":{"taskId":"web#build"}}}'
  echo '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"getRunHistory","arguments":{"task":"build","limit":3}}}'
  echo '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"runTasks","arguments":{"tasks":["deploy"]}}}'
} | "$bin/vx" mcp | while IFS= read -r line; do
  # One JSON-RPC answer per line; show the start of each.
  printf '%s\n\n' "${line:0:400}"
done

step "a secret: DEPLOY_TOKEN reaches the task, every output shows ***"
DEPLOY_TOKEN=hunter2-demo-secret "$bin/vx" run deploy --filter web

step "vxd status"
"$bin/vxd" status

step "vxd stop"
"$bin/vxd" stop
