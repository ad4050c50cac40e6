#!/usr/bin/env bash
# The main job on the bundled example workspace: cold and warm runs, an
# edit and `vx why`, a sandboxed task, the daemon, MCP answers through the
# stdio shim (both eras), `vxd status`; then the team features: a shared
# remote cache (a local turborepo-remote-cache, clone A uploads, clone B
# hits) and the team platform (a private PostgreSQL, vx-platform, pushed
# runs, the team tools over POST /mcp). Everything runs in one temporary
# directory and every server it starts is stopped on exit, failure
# included. A team part that cannot start here (no node, no PostgreSQL, no
# curl) is skipped with one line, except under CI=true, where it fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/bin"
work=$(mktemp -d /tmp/vx-demo-XXXXXX)
chmod 755 "$work" # the private PostgreSQL runs as postgres and lives under it
rcpid="" platpid="" pgdir=""
cleanup() {
  set +e
  "$bin/vxd" stop --root "$work/demo" >/dev/null 2>&1
  [ -n "$platpid" ] && kill "$platpid" 2>/dev/null && wait "$platpid" 2>/dev/null
  [ -n "$rcpid" ] && kill "$rcpid" 2>/dev/null && wait "$rcpid" 2>/dev/null
  [ -n "$pgdir" ] && bash "$here/scripts/pgserver.sh" stop "$pgdir" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# footer prints the summary of a vx run's output (from " Tasks:" on).
footer() { sed -n '/^ Tasks:/,$p'; }
# unavailable PART WHY: skip a team part in one line, or fail under CI=true.
skipped=()
started=() # "NAME PID" of every server started, checked at the end
unavailable() {
  if [ "${CI:-}" = true ]; then
    echo "demo: $1 cannot run on this machine: $2" >&2
    exit 1
  fi
  echo "skipping $1: $2"
  skipped+=("$1 ($2)")
}
# now_ms prints the wall clock in milliseconds.
now_ms() {
  if [ -n "${EPOCHREALTIME:-}" ]; then
    local t=${EPOCHREALTIME/[.,]/}
    echo $((10#$t / 1000))
  else
    echo $(($(date +%s) * 1000))
  fi
}
# timedvx ARGS...: vx ARGS, its output shown; its wall time (ms, the whole
# process as this script sees it) is left in $wall.
wall=0
timedvx() {
  local t0 rc=0
  t0=$(now_ms)
  "$bin/vx" "$@" || rc=$?
  wall=$(($(now_ms) - t0))
  return $rc
}
# freshtoken prints a random token for a server started here.
freshtoken() { printf '%s-%s\n' "$1" "$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"; }

cp -r "$here/examples/demo" "$work/demo"
cd "$work/demo"
git init -q && git add -A && git -c user.email=demo@vx -c user.name=demo commit -qm "demo workspace"

step "vx show: what can I run here"
"$bin/vx" show

step "cold run: vx run build test (every task executes)"
timedvx run build test
cold=$wall

step "warm run: every task a cache hit (each says so), its log replayed"
timedvx run build test
warm=$wall
echo "wall time of the vx process: cold ${cold} ms, warm ${warm} ms"

step "edit packages/ui/src/slider.js, run again: ui and web re-run"
echo "export const version = 2;" >> packages/ui/src/slider.js
"$bin/vx" run build test

step "vx why web#build: the upstream root and the file that moved"
"$bin/vx" why web#build

step "vx last --list"
"$bin/vx" last --list

step "a sandboxed task: api#lint may write nothing (enforce mode), so its cache file is refused, named in the footer"
"$bin/vx" run lint --filter api

step "vxd start, then the same fully cached run until one repeats the run before it, without loading the workspace (vxd's change journal says nothing changed since)"
"$bin/vxd" start
started+=("vxd $("$bin/vxd" status | awk '$1 == "pid" { print $2 }')")
# (A run takes a listing of the workspace from the journal only once it
# was saved outside its 2-second racy window: the edit above is recent.)
# Each run's wall time is the whole vx process; on 8 tasks a repeat saves
# little (the workspace's load is small here), and this machine's load
# moves each figure by tens of ms: the repeats after the first show the
# spread.
repeats=0 walls="" loaded=""
for _ in 1 2 3 4 5 6 7 8 9; do
  t0=$(now_ms)
  out=$("$bin/vx" run build test)
  wall=$(($(now_ms) - t0))
  echo "wall ${wall} ms: $(footer <<<"$out" | sed -n 's/^ Tasks: *//p; s/^ Repeat: \(run [0-9a-f]*\).*/a repeat of \1/p' | paste -sd ';' -)"
  if grep -q '^ Repeat: run ' <<<"$out"; then
    repeats=$((repeats + 1)) walls="$walls ${wall}"
    [ $repeats -ge 3 ] && break
  else
    loaded="$loaded ${wall}"
    sleep 1
  fi
done
echo "wall times: the repeats${walls} ms; the runs through vxd that loaded the workspace${loaded} ms; the warm run without vxd ${warm} ms"

step "MCP through the shim (vx mcp): initialize, tools/list, listTasks, whyDidThisRerun, getRunHistory, runTasks build (mcp.run allows it), runTasks deploy (it does not)"
# Each answer summarised (scripts/mcpsummary), in the order of the calls.
(cd "$here" && "${GO:-go}" build -o "$work/mcpsummary" ./scripts/mcpsummary)
{
  echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}'
  echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
  echo '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"listTasks","arguments":{"project":"web"}}}'
  echo '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"whyDidThisRerun","arguments":{"taskId":"web#build"}}}'
  echo '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"getRunHistory","arguments":{"task":"build","limit":3}}}'
  echo '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"runTasks","arguments":{"tasks":["build"],"filter":"web"}}}'
  echo '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"runTasks","arguments":{"tasks":["deploy"]}}}'
} | "$bin/vx" mcp | "$work/mcpsummary" 1=initialize 2=tools/list 3=listTasks 4=whyDidThisRerun 5=getRunHistory 6="runTasks build" 7="runTasks deploy"

step "MCP 2026-07-28 through the shim: server/discover, no initialize and no session"
echo '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"demo","version":"1"}}}}' |
  "$bin/vx" mcp | "$work/mcpsummary" 1=server/discover

step "a secret: DEPLOY_TOKEN reaches the task, every output shows ***"
DEPLOY_TOKEN=hunter2-demo-secret "$bin/vx" run deploy --filter web

step "vxd status"
"$bin/vxd" status

step "vxd stop"
"$bin/vxd" stop

# The team parts: the servers first, then two clones of the demo repository
# (the committed tree: the slider edit above is not in them) run against
# whichever of them started.
rcenv=() platenv=() platport="" readtoken=""

remote_cache_start() {
  step "team: a shared remote cache, a local turborepo-remote-cache (storage in the temp dir, a static token, a free port)"
  local dir="$here/tests/remotecache/node"
  local cli="$dir/node_modules/turborepo-remote-cache/dist/cli.js"
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    unavailable "the remote cache" "node and npm are not installed"
    return
  fi
  if [ ! -f "$cli" ]; then
    echo "turborepo-remote-cache is not installed: npm ci in tests/remotecache/node (the version its package-lock.json pins)"
    local t0=$SECONDS
    if ! (cd "$dir" && npm_config_cache="$work/npm-cache" npm ci --no-audit --no-fund --loglevel=error) >"$work/npm.log" 2>&1; then
      tail -n 5 "$work/npm.log"
      unavailable "the remote cache" "npm ci in tests/remotecache/node failed"
      return
    fi
    echo "installed in $((SECONDS - t0))s"
  fi
  local token url=""
  token=$(freshtoken rc)
  # PORT=0: the server takes a free port and logs it.
  STORAGE_PROVIDER=local STORAGE_PATH="$work/remote-storage" STORAGE_PATH_USE_TMP_FOLDER=false \
    TURBO_TOKEN="$token" PORT=0 HOST=127.0.0.1 LOG_LEVEL=info NODE_ENV=production \
    node "$cli" >"$work/remote.log" 2>&1 &
  rcpid=$!
  started+=("turborepo-remote-cache $rcpid")
  for _ in $(seq 600); do
    url=$(sed -n 's/.*Server listening at \(http:[^"]*\)".*/\1/p' "$work/remote.log" | head -n 1)
    [ -n "$url" ] || ! kill -0 "$rcpid" 2>/dev/null && break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    tail -n 5 "$work/remote.log"
    unavailable "the remote cache" "turborepo-remote-cache did not start"
    return
  fi
  echo "turborepo-remote-cache (pid $rcpid) serving $url"
  rcenv=(VX_REMOTE_CACHE_URL="$url" VX_REMOTE_CACHE_TOKEN="$token" VX_REMOTE_CACHE_TEAM=demo)
}

platform_start() {
  step "team: the platform on a private PostgreSQL: vx-platform migrate, org create, an ingest and a read token, serve"
  if ! command -v curl >/dev/null; then
    unavailable "the team platform" "curl is not installed"
    return
  fi
  local db
  pgdir="$work/pg"
  if ! db=$(bash "$here/scripts/pgserver.sh" start "$pgdir" 2>"$work/pg.err"); then
    bash "$here/scripts/pgserver.sh" stop "$pgdir" >/dev/null 2>&1 || true
    pgdir=""
    unavailable "the team platform" "$(tail -n 1 "$work/pg.err")"
    return
  fi
  echo "PostgreSQL in the temp dir at ${db%%\?*}"
  started+=("postgres $(head -n 1 "$pgdir/data/postmaster.pid")")
  local plat=(env VX_PLATFORM_DB="$db" "$bin/vx-platform")
  "${plat[@]}" migrate
  "${plat[@]}" org create demo
  local ingest port=""
  ingest=$("${plat[@]}" token create --org demo --scope ingest --name laptop)
  readtoken=$("${plat[@]}" token create --org demo --scope read --name agent)
  "${plat[@]}" token list --org demo
  "${plat[@]}" serve --listen 127.0.0.1:0 2>"$work/serve.log" &
  platpid=$!
  started+=("vx-platform $platpid")
  for _ in $(seq 300); do
    port=$(sed -n 's/.*"listen":"127.0.0.1:\([0-9]*\)".*/\1/p' "$work/serve.log" | head -n 1)
    [ -n "$port" ] && curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$platpid" 2>/dev/null || break
    port=""
    sleep 0.1
  done
  if [ -z "$port" ]; then
    tail -n 5 "$work/serve.log"
    unavailable "the team platform" "vx-platform serve did not start"
    return
  fi
  echo "vx-platform (pid $platpid) serving http://127.0.0.1:$port (dashboard at /)"
  platport=$port
  platenv=(VX_PLATFORM_URL="http://127.0.0.1:$port" VX_PLATFORM_WORKSPACE=demo VX_PLATFORM_TOKEN="$ingest")
}

# teamvx CLONE ARGS...: vx in a clone, with the team servers that started.
teamvx() {
  local clone=$1
  shift
  (cd "$work/$clone" && env ${rcenv[@]+"${rcenv[@]}"} ${platenv[@]+"${platenv[@]}"} "$bin/vx" "$@")
}

# teammcp CALL: a tools/call to the platform's POST /mcp with the read token;
# prints its structured answer.
teammcp() {
  {
    curl -fsS "http://127.0.0.1:$platport/mcp" -H "Authorization: Bearer $readtoken" -H 'Content-Type: application/json' \
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'"$1"'}'
    echo
  } | sed 's/.*"structuredContent"://; s/}}$//'
}

clones() {
  local with=()
  [ ${#rcenv[@]} -gt 0 ] && with+=("the remote cache")
  [ ${#platenv[@]} -gt 0 ] && with+=("the platform (VX_PLATFORM_URL, VX_PLATFORM_WORKSPACE=demo, VX_PLATFORM_TOKEN)")
  [ ${#with[@]} -gt 0 ] || return 0
  git clone -q "$work/demo" "$work/clone-a"
  git clone -q "$work/demo" "$work/clone-b"

  step "team: clone A, a cold run; with $(printf '%s and ' "${with[@]}" | sed 's/ and $//')"
  teamvx clone-a run build test | footer
  if [ ${#rcenv[@]} -gt 0 ]; then
    echo "uploaded: the server holds $(find "$work/remote-storage" -type f ! -name '*.tag' | wc -l | tr -d ' ') artifacts"
  fi
  step "team: a fresh clone B, the same run"
  teamvx clone-b run build test | footer
  if [ ${#rcenv[@]} -gt 0 ]; then
    step "team: vx why web#build and vx last in clone B: the hit came from the remote"
    teamvx clone-b why web#build
    teamvx clone-b last
    step "team: vx cache status in clone B"
    teamvx clone-b cache status
  fi
  if [ ${#platenv[@]} -gt 0 ]; then
    local a b
    a=$(teamvx clone-a last --list | awk 'NR == 2 { print $1 }')
    b=$(teamvx clone-b last --list | awk 'NR == 2 { print $1 }')
    step "team: the team tools over POST /mcp with the read token: list_runs, compare_runs $b (clone B) against $a (clone A)"
    echo "list_runs:"
    teammcp '{"name":"list_runs","arguments":{"limit":2}}' |
      sed 's/.*"runs":\[{//; s/}\]}$//; s/},{/\n/g' | sed 's/"gitCommit":"[^"]*",//; s/"startedAt":"[^"]*","endedAt":"[^"]*",//; s/"exitCode":[0-9]*,//; s/^/  /' | cut -c1-220
    echo "compare_runs, its totals:"
    teammcp '{"name":"compare_runs","arguments":{"runId":"'"$b"'"}}' | sed -n 's/.*"totals":\({[^}]*}\).*/  \1/p'
  fi
}

team_stop() {
  [ -n "$rcpid$platpid$pgdir" ] || return 0
  step "team: stop every server the demo started"
  if [ -n "$rcpid" ]; then
    kill "$rcpid" && wait "$rcpid" 2>/dev/null || true
    echo "turborepo-remote-cache (pid $rcpid) stopped"
    rcpid=""
  fi
  if [ -n "$platpid" ]; then
    kill "$platpid" && wait "$platpid" 2>/dev/null || true
    echo "vx-platform (pid $platpid) stopped"
    platpid=""
  fi
  if [ -n "$pgdir" ]; then
    bash "$here/scripts/pgserver.sh" stop "$pgdir"
    echo "PostgreSQL stopped"
    pgdir=""
  fi
}

remote_cache_start
platform_start
clones
team_stop

left=() names=()
for s in "${started[@]}"; do
  set -- $s
  names+=("$1")
  # A server that was told to stop may take a moment to exit after saying so.
  for _ in $(seq 50); do kill -0 "$2" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$2" 2>/dev/null && left+=("$1 (pid $2)")
done
if [ ${#left[@]} -gt 0 ]; then
  echo "demo: still running: ${left[*]}" >&2
  exit 1
fi
step "done in ${SECONDS}s; every server it started is gone ($(printf '%s, ' "${names[@]}" | sed 's/, $//')), the temp dir goes next"
if [ ${#skipped[@]} -gt 0 ]; then
  printf 'skipped: %s\n' "${skipped[@]}"
fi
