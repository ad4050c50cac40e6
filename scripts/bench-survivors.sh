#!/usr/bin/env bash
# How long a task's processes outlive `vx run` killed with -9: a task that
# starts a setsid'd sleeper and a double-forked one, vx killed 1.5 s in,
# then the time until no sleeper is left (with the run's cgroup, and with
# VX_FORCE_NO_CGROUP=1, the subreaper and watchdog fallback). Linux.
# Usage: bash scripts/bench-survivors.sh [ROUNDS]   (after make build)
set -euo pipefail
vx="$(cd "$(dirname "$0")/.." && pwd)/bin/vx"
rounds="${1:-5}"
ws="$(mktemp -d)"
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/a"
marker="sleep 30.$$"
printf '{ "projects": ["a"], "tasks": { "build": { "cache": false } } }\n' >"$ws/vx.workspace.json"
cat >"$ws/a/package.json" <<JSON
{ "name": "a", "scripts": { "build": "(setsid $marker) & (sh -c '($marker) &'); sleep 30" } }
JSON
for mode in cgroup no-cgroup; do
  for _ in $(seq "$rounds"); do
    if [ "$mode" = no-cgroup ]; then export VX_FORCE_NO_CGROUP=1; else unset VX_FORCE_NO_CGROUP; fi
    (cd "$ws" && exec "$vx" run build --ui stream >/dev/null 2>&1) &
    pid=$!
    sleep 1.5
    n=$(pgrep -fxc "$marker" || true)
    [ "$n" -ge 2 ] || { echo "the task's sleepers did not start ($n)" >&2; exit 1; }
    t0=$(date +%s%N)
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    while pgrep -fx "$marker" >/dev/null; do sleep 0.005; done
    t1=$(date +%s%N)
    echo "$mode: the task's $n processes gone $(( (t1 - t0) / 1000000 )) ms after kill -9"
  done
done
