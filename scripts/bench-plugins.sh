#!/usr/bin/env bash
# What plugins cost a no-op run: a fully cached `vx run build` of the
# generated workspace (scripts/bench/gen, BENCH_CACHED_N packages, default
# 1000) without plugins and with two declared (two copies of the reference
# plugin, examples/plugins/vx-plugin-reference.mjs, each inferring a task
# from a vx-ref.json in every package). Both configurations have run once
# before the rounds, so the plugins' answers are stored in .vx/plugins and
# no plugin process starts (the script checks that with the plugins' start
# logs). One directory serves both (its vx.workspace.json is swapped before
# each run), in an order rotated every round. Prints a markdown block:
# medians of BENCH_CACHED_RUNS (default 9) and the ratio; goal ≤ 1.05.
#
# Usage: bash scripts/bench-plugins.sh
# Env:   BENCH_CACHED_N, BENCH_CACHED_RUNS, BENCH_WORK, BENCH_VX_BIN
set -euo pipefail
{
BENCH_NAME=bench-plugins
source "$(dirname "${BASH_SOURCE[0]}")/bench/lib.sh"
N=${BENCH_CACHED_N:-1000}
RUNS=${BENCH_CACHED_RUNS:-9}
unset VX_LOG
need_tools node git

mkdir -p "$WORK/bin" "$WORK/ws"
build_gen_and_vx

ws=$WORK/ws/plugins-$N
rm -rf "$ws"
gen_repo "$N" "$ws" "npm@10.0.0" >/dev/null
mkdir -p "$ws/tools"
cp "$ROOT/examples/plugins/vx-plugin-reference.mjs" "$ws/tools/ref.mjs"
cp "$ROOT/examples/plugins/vx-plugin-reference.mjs" "$ws/tools/ref2.mjs"
for d in "$ws"/packages/*/; do
  echo '{"command": "echo ref", "outputs": ["ref/**"]}' >"$d/vx-ref.json"
done
echo 'plugin-starts-*.log' >>"$ws/.gitignore"
git -C "$ws" add -A
git -C "$ws" -c user.name=bench -c user.email=bench@localhost -c commit.gpgsign=false commit -qm "plugins and their files"

cfg=$WORK/ws/plugins-$N.cfg
mkdir -p "$cfg"
cp "$ws/vx.workspace.json" "$cfg/none"
sed '0,/"projects"/s//"plugins": [\n    {"plugin": ".\/tools\/ref.mjs", "options": {"log": "plugin-starts-1.log"}},\n    {"plugin": ".\/tools\/ref2.mjs", "options": {"log": "plugin-starts-2.log", "taskName": "ref2"}}\n  ],\n  "projects"/' \
  "$cfg/none" >"$cfg/two"

# run CONFIG: wall ms of one no-op `vx run build` under CONFIG.
run() {
  cp "$cfg/$1" "$ws/vx.workspace.json"
  (cd "$ws" && ms "$VX" run build)
}

# Fill the cache and the plugins' stored answers, then check both
# configurations are no-ops and that the plugins did answer.
(cd "$ws" && "$VX" run build >/dev/null)
run two >/dev/null
run none >/dev/null
run two >/dev/null
(cd "$ws" && "$VX" show pkg-0000#ref2 | grep -q 'inferred from') || die "the plugins inferred no task"
starts=$(cat "$ws"/plugin-starts-*.log | wc -l)
(cd "$ws" && "$VX" run build --format json | grep -q "\"cached\": *$N") || log "warning: not every task was a hit"

slots=(none two)
none=() two=() r=()
declare -A W
for ((i = 1; i <= RUNS; i++)); do
  for ((k = 0; k < ${#slots[@]}; k++)); do
    slot=${slots[$(((k + i) % ${#slots[@]}))]}
    W[$slot]=$(run "$slot")
  done
  none+=("${W[none]}") two+=("${W[two]}")
  r+=("$(awk -v a="${W[two]}" -v b="${W[none]}" 'BEGIN { printf "%.3f", a / b }')")
  log "round $i: none ${none[-1]} ms, two plugins ${two[-1]} ms"
done
after=$(cat "$ws"/plugin-starts-*.log | wc -l)
[[ $after == "$starts" ]] || die "plugin processes started during the rounds ($starts before, $after after)"
mn=$(median "${none[@]}") mt=$(median "${two[@]}")
cat <<MD
Command: \`bash scripts/bench-plugins.sh\`, $(nproc) CPUs, Linux $(uname -r), $(go version | awk '{print $3}').

| no-op \`run build\`, $N packages (median of $RUNS) | wall ms | × |
|---|---:|---:|
| no plugins | $mn | 1 |
| two plugins, answers stored (no plugin process started) | $mt | $(ratio "$mt" "$mn") |

Median of each round's ratio: $(fmedian "${r[@]}"). Goal: ≤ 1.05.
Samples, wall ms: none ${none[*]}; two ${two[*]}. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).
MD
}
