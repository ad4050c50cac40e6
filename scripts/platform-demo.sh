#!/usr/bin/env bash
# The team platform on the bundled example workspace: a private PostgreSQL,
# vx-platform serve, an org and its tokens, two vx runs pushed, then the
# team tools over POST /mcp and a /v1 route. Leaves nothing running.
# Needs bin/vx and bin/vx-platform (make build), Debian's postgresql and curl.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/bin"
work=$(mktemp -d /tmp/vx-platform-demo-XXXXXX)
chmod 755 "$work"
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  bash "$here/scripts/pgserver.sh" stop "$work/pg" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "a private PostgreSQL, the schema, an org and two tokens"
export VX_PLATFORM_DB=$(bash "$here/scripts/pgserver.sh" start "$work/pg")
"$bin/vx-platform" migrate
"$bin/vx-platform" org create demo
ingest=$("$bin/vx-platform" token create --org demo --scope ingest --name laptop)
read=$("$bin/vx-platform" token create --org demo --scope read --name agent)
"$bin/vx-platform" token list --org demo

step "vx-platform serve"
"$bin/vx-platform" serve --listen 127.0.0.1:0 2>"$work/serve.log" &
pid=$!
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*"listen":"127.0.0.1:\([0-9]*\)".*/\1/p' "$work/serve.log" | head -1)
  [ -n "$port" ] && curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.1
done
echo "listening on http://127.0.0.1:$port (dashboard at /)"

step "two vx runs of examples/demo, pushed as workspace demo-web"
cp -r "$here/examples/demo" "$work/ws"
cd "$work/ws"
git init -q && git add -A && git -c user.email=demo@vx -c user.name=demo commit -qm "demo workspace"
export VX_PLATFORM_URL="http://127.0.0.1:$port" VX_PLATFORM_WORKSPACE=demo-web VX_PLATFORM_TOKEN="$ingest"
"$bin/vx" run build test >/dev/null
echo "export const version = 3;" >> packages/ui/src/slider.js
"$bin/vx" run build test >/dev/null
"$bin/vx" last --list
unset VX_PLATFORM_TOKEN

mcp() {
  curl -fsS "http://127.0.0.1:$port/mcp" -H "Authorization: Bearer $read" -H 'Content-Type: application/json' -d "$1"
  echo
}
step "the team tools over POST /mcp (a read token)"
run=$("$bin/vx" last --list | awk 'NR == 2 { print $1 }')
mcp '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_workspaces"}}' | sed 's/.*"structuredContent"://' | cut -c1-400
mcp '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cache_stats"}}' | sed 's/.*"structuredContent"://' | cut -c1-400
mcp '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"why_did_rerun","arguments":{"runId":"'"$run"'","taskId":"web#build"}}}' | sed 's/.*"structuredContent"://' | cut -c1-600
mcp '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"compare_runs","arguments":{"runId":"'"$run"'"}}}' | sed 's/.*"structuredContent"://' | cut -c1-400

step "GET /v1/runs?limit=2 (the same answer as list_runs)"
curl -fsS "http://127.0.0.1:$port/v1/runs?limit=2" -H "Authorization: Bearer $read" | cut -c1-400
echo
