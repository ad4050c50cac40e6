#!/usr/bin/env bash
# What the two shipped plugins cost a no-op run of a real repository: a
# fully cached `vx run TASK` of BENCH_REPO without plugins and with
# @vzn/vx-plugin-vitest and @vzn/vx-plugin-eslint declared, alternated
# round by round (BENCH_REPO_RUNS rounds, default 15), then, with
# BENCH_INSTRUCTIONS=N (needs valgrind), the user-space instructions of N
# runs of each. Prints a markdown block: medians and ratios; goal ≤ 1.05.
#
# BENCH_REPO is a checkout you prepared as a user would: its dependencies
# installed, `vx init` run (its vx.workspace.json, plain JSON, is the
# configuration without plugins), both plugin packages in its
# node_modules/@vzn/ (e.g. npm install --no-save ./npm/vx-plugin-vitest
# ./npm/vx-plugin-eslint from this repository), and TASK (BENCH_REPO_TASK,
# default build) passing, since every run must be a full hit. The script
# swaps vx.workspace.json between the two configurations and puts the
# original back at the end; the plugins' answers are stored before the
# rounds, and the script checks that no plugin process starts in them.
#
# Usage: BENCH_REPO=/path/to/repo bash scripts/bench-plugins-repo.sh
# Env:   BENCH_REPO, BENCH_REPO_TASK, BENCH_REPO_RUNS, BENCH_INSTRUCTIONS,
#        BENCH_WORK, BENCH_VX_BIN
set -euo pipefail
{
BENCH_NAME=bench-plugins-repo
source "$(dirname "${BASH_SOURCE[0]}")/bench/lib.sh"
REPO=${BENCH_REPO:?set BENCH_REPO to a prepared checkout (see the header)}
TASK=${BENCH_REPO_TASK:-build}
RUNS=${BENCH_REPO_RUNS:-15}
unset VX_LOG
need_tools node strace
mkdir -p "$WORK/bin" "$WORK/repo-cfg"
if [[ -n ${BENCH_VX_BIN:-} ]]; then
  VX=$(cd "$(dirname "$BENCH_VX_BIN")" && pwd)/$(basename "$BENCH_VX_BIN")
else
  (cd "$ROOT" && CGO_ENABLED=1 go build -o "$WORK/bin/vx" ./cmd/vx)
  VX=$WORK/bin/vx
fi
(cd "$ROOT" && go build -o "$WORK/bin/cputime" ./scripts/bench/cputime)
for p in vx-plugin-vitest vx-plugin-eslint; do
  [[ -f $REPO/node_modules/@vzn/$p/package.json ]] || die "@vzn/$p is not in $REPO/node_modules (see the header)"
done

cfg=$WORK/repo-cfg
cp "$REPO/vx.workspace.json" "$cfg/none"
trap 'cp "$cfg/none" "$REPO/vx.workspace.json"' EXIT
grep -q '"plugins"' "$cfg/none" && die "$REPO/vx.workspace.json declares plugins already: give the script the configuration without them"
# After the opening brace (the file may hold comments, so it is not parsed).
sed '0,/{/s//{\n  "plugins": ["@vzn\/vx-plugin-vitest", "@vzn\/vx-plugin-eslint"],/' "$cfg/none" >"$cfg/plugins"
cmp -s "$cfg/none" "$cfg/plugins" && die "no opening brace in $REPO/vx.workspace.json"

# run CONFIG: "WALL CPU" ms of one no-op `vx run TASK` under CONFIG.
run() {
  cmp -s "$cfg/$1" "$REPO/vx.workspace.json" || cp "$cfg/$1" "$REPO/vx.workspace.json"
  (cd "$REPO" && "$WORK/bin/cputime" "$WORK/time.txt" "$VX" run "$TASK" >"$WORK/last-out" 2>"$WORK/last-stderr") ||
    { cat "$WORK/last-stderr" >&2; die "vx run $TASK failed under $1"; }
  awk '{ printf "%d %.1f\n", $1 / 1000, $2 / 1000 }' "$WORK/time.txt"
}

# Warm both: the plugins answer once, then every run is a full hit.
for c in plugins none plugins none; do run "$c" >/dev/null; done
sleep 2 # what the warm runs wrote settles (see bench-plugins.sh)
run plugins >/dev/null
grep -qE 'Tasks: +([0-9]+) passed, \1 cached' "$WORK/last-out" || die "vx run $TASK is not fully cached; run it until it is"
tasks=$(cd "$REPO" && "$VX" info --format json | node -e '
  const s = JSON.parse(require("fs").readFileSync(0, "utf8"));
  console.log((s.plugins || []).reduce((n, p) => n + p.tasks, 0))')
starts=$(cd "$REPO" && strace -f -e trace=execve "$VX" run "$TASK" 2>&1 >/dev/null | grep -c 'execve("[^"]*node"' || true)
[[ $starts == 0 ]] || die "a warm run started a node process: the plugins' answers are not reused"

none=() plugins=() cnone=() cplugins=()
for ((i = 1; i <= RUNS; i++)); do
  for c in $( ((i % 2)) && echo none plugins || echo plugins none); do
    read -r w cpu < <(run "$c")
    if [[ $c == none ]]; then none+=("$w") cnone+=("$cpu"); else plugins+=("$w") cplugins+=("$cpu"); fi
  done
  log "round $i: none ${none[-1]} ms (cpu ${cnone[-1]}), plugins ${plugins[-1]} (${cplugins[-1]})"
done

irow=""
if [[ -n ${BENCH_INSTRUCTIONS:-} ]]; then
  need_tools valgrind
  declare -A I
  for c in none plugins; do
    run "$c" >/dev/null
    sleep 2
    run "$c" >/dev/null
    counts=()
    for ((k = 1; k <= BENCH_INSTRUCTIONS; k++)); do
      out=$(cd "$REPO" && GODEBUG=asyncpreemptoff=1 GOGC=off \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$VX" run "$TASK" 2>&1 >/dev/null) ||
        { grep -v '^==' <<<"$out" | tail -5 >&2; die "a run under callgrind failed under $c"; }
      counts+=("$(awk '/Collected :/ {print $4}' <<<"$out")")
    done
    I[$c]=$(fmedian "${counts[@]}")
  done
  irow="| user-space instructions (M, median of $BENCH_INSTRUCTIONS) | $(awk -v n="${I[none]}" 'BEGIN {printf "%.1f", n / 1e6}') | $(awk -v n="${I[plugins]}" 'BEGIN {printf "%.1f", n / 1e6}') | $(ratio "${I[plugins]}" "${I[none]}") |"
fi

commit=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo "?")
cat <<EOF

Command: \`BENCH_REPO=$REPO bash scripts/bench-plugins-repo.sh\` ($(basename "$REPO") at $commit, task $TASK, $tasks inferred tasks), $(nproc) CPUs, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).

| no-op \`vx run $TASK\` | no plugins | two plugins | × |
|---|---:|---:|---:|
| wall ms (median of $RUNS) | $(fmedian "${none[@]}") | $(fmedian "${plugins[@]}") | $(ratio "$(fmedian "${plugins[@]}")" "$(fmedian "${none[@]}")") |
| CPU ms (median of $RUNS) | $(fmedian "${cnone[@]}") | $(fmedian "${cplugins[@]}") | $(ratio "$(fmedian "${cplugins[@]}")" "$(fmedian "${cnone[@]}")") |
$irow

Goal: ≤ 1.05.
EOF
}
