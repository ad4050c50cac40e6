#!/usr/bin/env bash
# What plugins cost a no-op run: a fully cached `vx run build` of the
# generated workspace (scripts/bench/gen, BENCH_CACHED_N packages, default
# 1000) without plugins and with two declared (two copies of the reference
# plugin, examples/plugins/vx-plugin-reference.mjs, each inferring a task
# from a vx-ref.json in every package). Both configurations have run once
# before the rounds, so the plugins' answers are stored in .vx/plugins and
# no plugin process starts (the script checks that with the plugins' start
# logs). A third configuration writes the plugins' tasks by hand instead,
# to tell the cost of the plugins from that of the tasks they add. One
# directory serves all three (its vx.workspace.json is swapped before
# each run), in an order rotated every round. Then, in the same round,
# with vxd up (started, and stopped at the round's end), none and two
# plugins again: a run in an environment of its own, which takes its
# files from vxd's change journal (the journal's run), and the same run
# again, which repeats it (daemon/journal). Prints a markdown block:
# medians of BENCH_CACHED_RUNS (default 9) and the ratio; goal ≤ 1.05.
#
# With BENCH_INSTRUCTIONS=N (needs valgrind), it then counts the
# user-space instructions of N runs of each configuration under callgrind
# (without vxd, then the journal's run with vxd up): a count that a
# shared machine's load does not move, where the timings above move by
# ±5% from one invocation to the next. Syscalls' kernel time is not in it.
# It counts a fourth configuration too: two plugins matching the same
# files that infer no task, the proof of the stored answers alone; and a
# fifth: the two plugins vx ships (npm/vx-plugin-*), which find no
# Vitest or ESLint config here.
#
# Usage: bash scripts/bench-plugins.sh
# Env:   BENCH_CACHED_N, BENCH_CACHED_RUNS, BENCH_WORK, BENCH_VX_BIN,
#        BENCH_INSTRUCTIONS
set -euo pipefail
{
BENCH_NAME=bench-plugins
source "$(dirname "${BASH_SOURCE[0]}")/bench/lib.sh"
N=${BENCH_CACHED_N:-1000}
RUNS=${BENCH_CACHED_RUNS:-9}
unset VX_LOG
need_tools node git cmp

mkdir -p "$WORK/bin" "$WORK/ws"
build_gen_and_vx
# vxd beside vx (as installed); built when BENCH_VX_BIN has none beside it.
VXDBIN=$(dirname "$VX")/vxd
if [[ -z ${BENCH_VX_BIN:-} || ! -x $VXDBIN ]]; then
  (cd "$ROOT" && CGO_ENABLED=1 go build -o "$WORK/bin/vxd" ./cmd/vxd)
  VXDBIN=$WORK/bin/vxd
fi
(cd "$ROOT" && go build -o "$WORK/bin/cputime" ./scripts/bench/cputime)

ws=$WORK/ws/plugins-$N
rm -rf "$ws"
gen_repo "$N" "$ws" "npm@10.0.0" >/dev/null
mkdir -p "$ws/tools"
cp "$ROOT/examples/plugins/vx-plugin-reference.mjs" "$ws/tools/ref.mjs"
cp "$ROOT/examples/plugins/vx-plugin-reference.mjs" "$ws/tools/ref2.mjs"
# Two copies that match the same files and infer no task: what proving
# the stored answers still hold costs, their tasks apart.
sed 's/out\.push(t);/void t;/' "$ROOT/examples/plugins/vx-plugin-reference.mjs" >"$ws/tools/proof.mjs"
grep -q 'void t;' "$ws/tools/proof.mjs" || die "the reference plugin no longer pushes its tasks as this script expects"
cp "$ws/tools/proof.mjs" "$ws/tools/proof2.mjs"
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
sed 's#\./tools/ref\(2*\)\.mjs#./tools/proof\1.mjs#; s#plugin-starts-#plugin-starts-proof-#' "$cfg/two" >"$cfg/proof"
# The two plugins vx ships, installed as a user installs them: this
# workspace has no Vitest or ESLint config, so they match no file and
# infer nothing (what declaring them costs a workspace they find nothing in).
mkdir -p "$ws/node_modules/@vzn"
cp -R "$ROOT/npm/vx-plugin-vitest" "$ROOT/npm/vx-plugin-eslint" "$ws/node_modules/@vzn/"
sed '0,/"projects"/s//"plugins": ["@vzn\/vx-plugin-vitest", "@vzn\/vx-plugin-eslint"],\n  "projects"/' "$cfg/none" >"$cfg/shipped"
# The same tasks written by hand: what having them costs, plugins apart.
sed '0,/"tasks": {/s//"tasks": {\n    "ref": {"command": "echo ref", "inputs": ["**\/*"], "outputs": ["ref\/**"]},\n    "ref2": {"command": "echo ref", "inputs": ["**\/*"], "outputs": ["ref\/**"]},/' \
  "$cfg/none" >"$cfg/hand"

# run CONFIG: "WALL CPU" ms of one no-op `vx run build` under CONFIG; CPU
# is user+sys (scripts/bench/cputime, to 0.1 ms: GNU time's 10 ms steps
# are an eighth of the run), steadier than wall time on a shared machine.
run() {
  # Copied only when another: with vxd up, a rewritten configuration is a
  # change the journal reports, and the same run again would not repeat.
  cmp -s "$cfg/$1" "$ws/vx.workspace.json" || cp "$cfg/$1" "$ws/vx.workspace.json"
  (cd "$ws" && "$WORK/bin/cputime" "$WORK/time.txt" "$VX" run build >/dev/null 2>"$WORK/last-stderr") ||
    { cat "$WORK/last-stderr" >&2; die "a run failed under $1"; }
  awk '{ printf "%d %.1f\n", $1 / 1000, $2 / 1000 }' "$WORK/time.txt"
}

# Fill the cache and the plugins' stored answers, then check both
# configurations are no-ops and that the plugins did answer.
(cd "$ws" && "$VX" run build >/dev/null)
run two >/dev/null
run none >/dev/null
run hand >/dev/null
run two >/dev/null
# Read whole before grep: grep -q leaving early would fail vx with SIGPIPE.
shown=$(cd "$ws" && "$VX" show pkg-0000#ref2)
grep -q 'inferred from' <<<"$shown" || die "the plugins inferred no task"
starts=$(cat "$ws"/plugin-starts-*.log | wc -l)
summary=$(cd "$ws" && "$VX" run build --format json 2>/dev/null)
grep -q "\"cached\": *$N" <<<"$summary" || log "warning: not every task was a hit"

# journal_ready CONFIG: with vxd up, put CONFIG in place and run until a
# run takes its files from the journal or repeats one that did (vxd reloads the changed
# configuration meanwhile, which is not to share the measured run's cores).
journal_ready() {
  local how
  cmp -s "$cfg/$1" "$ws/vx.workspace.json" || cp "$cfg/$1" "$ws/vx.workspace.json"
  for _ in $(seq 20); do
    how=$(cd "$ws" && BENCH_ROUND=warm VX_LOG=debug "$VX" run build 2>&1 >/dev/null) || die "vx run build failed with vxd up under $1"
    # A run of the journal, or one that repeats such a run.
    if grep -qE '"files":"journal:|"repeat":true' <<<"$how"; then
      # vxd reloads the changed configuration (its plugins too) meanwhile:
      # a moment lets it finish rather than share the measured runs' cores.
      sleep 1
      return
    fi
    sleep 0.2
  done
  die "vx never took its files from vxd's change journal under $1"
}
trap '(cd "$ws" && "$VXDBIN" stop >/dev/null 2>&1) || true' EXIT
# With vxd up, once: the journal's run is one, and its repeat repeats it.
(cd "$ws" && "$VXDBIN" start >/dev/null) || die "vxd start failed"
journal_ready two
# A few tries: a run leaves no memo to repeat while what it checks was
# written within the last moments (the workspace was just generated).
for try in 1 2 3; do
  (cd "$ws" && BENCH_ROUND=check$try "$VX" run build >/dev/null 2>&1) || die "vx run build failed with vxd up"
  repeated=$(cd "$ws" && BENCH_ROUND=check$try "$VX" run build 2>/dev/null | grep -c '^ Repeat: run ' || true)
  [[ $repeated == 1 ]] && break
  sleep 1
done
[[ $repeated == 1 ]] || die "with vxd up and two plugins, the same request again did not repeat the run before it"
(cd "$ws" && "$VXDBIN" stop >/dev/null) || die "vxd stop failed"

slots=(none hand two)
none=() two=() hand=() cnone=() ctwo=() chand=() r=() cr=()
jnone=() jtwo=() cjnone=() cjtwo=() rnone=() rtwo=() crnone=() crtwo=()
declare -A W C
for ((i = 1; i <= RUNS; i++)); do
  for ((k = 0; k < ${#slots[@]}; k++)); do
    slot=${slots[$(((k + i) % ${#slots[@]}))]}
    read -r w c < <(run "$slot")
    W[$slot]=$w C[$slot]=$c
  done
  none+=("${W[none]}") two+=("${W[two]}") cnone+=("${C[none]}") ctwo+=("${C[two]}")
  hand+=("${W[hand]}") chand+=("${C[hand]}")
  r+=("$(awk -v a="${W[two]}" -v b="${W[none]}" 'BEGIN { printf "%.3f", a / b }')")
  cr+=("$(awk -v a="${C[two]}" -v b="${C[none]}" 'BEGIN { printf "%.3f", a / (b > 0 ? b : 1) }')")
  # With vxd up: the journal's run (an environment of its own), then its repeat.
  (cd "$ws" && "$VXDBIN" start >/dev/null) || die "vxd start failed"
  for slot in $( ((i % 2)) && echo none two || echo two none); do
    journal_ready "$slot"
    read -r w c < <(BENCH_ROUND=$i run "$slot")
    W[j$slot]=$w C[j$slot]=$c
    read -r w c < <(BENCH_ROUND=$i run "$slot")
    W[r$slot]=$w C[r$slot]=$c
  done
  (cd "$ws" && "$VXDBIN" stop >/dev/null) || die "vxd stop failed"
  jnone+=("${W[jnone]}") jtwo+=("${W[jtwo]}") cjnone+=("${C[jnone]}") cjtwo+=("${C[jtwo]}")
  rnone+=("${W[rnone]}") rtwo+=("${W[rtwo]}") crnone+=("${C[rnone]}") crtwo+=("${C[rtwo]}")
  log "round $i: none ${none[-1]} ms (cpu ${cnone[-1]}), by hand ${hand[-1]} (${chand[-1]}), two plugins ${two[-1]} (${ctwo[-1]}); vxd up, journal: none ${jnone[-1]} (${cjnone[-1]}), two ${jtwo[-1]} (${cjtwo[-1]}); repeat: none ${rnone[-1]} (${crnone[-1]}), two ${rtwo[-1]} (${crtwo[-1]})"
done
after=$(cat "$ws"/plugin-starts-*.log | wc -l)
[[ $after == "$starts" ]] || die "plugin processes started during the rounds ($starts before, $after after)"

# instructions CONFIG: the median user-space instruction count of
# BENCH_INSTRUCTIONS no-op runs under CONFIG (asynchronous preemption off:
# callgrind does not survive Go's preemption signals; no collection).
instructions() {
  local out counts=() try
  for ((k = 1; k <= BENCH_INSTRUCTIONS; k++)); do
    for try in 1 2 3; do
      out=$(cd "$ws" && BENCH_ROUND=ir$1$k GODEBUG=asyncpreemptoff=1 GOGC=off \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$VX" run build 2>&1 >/dev/null) && break
      # Only valgrind's own crash is tried again; vx failing is not.
      grep -q 'report this bug to: www.valgrind.org' <<<"$out" && ((try < 3)) && continue
      grep -v '^==' <<<"$out" | tail -5 >&2
      die "a run under callgrind failed under $1"
    done
    counts+=("$(awk '/Collected :/ {print $4}' <<<"$out")")
  done
  fmedian "${counts[@]}"
}
irows=""
if [[ -n ${BENCH_INSTRUCTIONS:-} ]]; then
  need_tools valgrind
  declare -A I
  for slot in none hand two proof shipped; do
    # proof's plugins answer in the first of these runs, and write their
    # logs: the last run, once those have settled (a listing holding a stat
    # of the last moments is not saved), saves the workspace's listing,
    # which the counted runs then reuse. A run that lists again starts git,
    # whose start callgrind 3.19 may die on (an unhandled pidfd_open, then
    # an assertion in its signal handling).
    run "$slot" >/dev/null
    run "$slot" >/dev/null
    sleep 2
    run "$slot" >/dev/null
    I[$slot]=$(instructions "$slot")
  done
  (cd "$ws" && "$VXDBIN" start >/dev/null) || die "vxd start failed"
  for slot in none two; do
    journal_ready "$slot"
    # Two more journal's runs: the first after a change may store again.
    (cd "$ws" && BENCH_ROUND=irw1 "$VX" run build >/dev/null 2>&1 && BENCH_ROUND=irw2 "$VX" run build >/dev/null 2>&1)
    I[j$slot]=$(instructions "$slot")
  done
  (cd "$ws" && "$VXDBIN" stop >/dev/null) || die "vxd stop failed"
  m() { awk -v n="$1" 'BEGIN {printf "%.1f", n / 1e6}'; }
  irows="
Instructions (user space, millions; median of $BENCH_INSTRUCTIONS runs under callgrind):

| no-op \`run build\` | M instructions | × |
|---|---:|---:|
| no plugins | $(m "${I[none]}") | 1 |
| no plugins, the same tasks written by hand | $(m "${I[hand]}") | $(ratio "${I[hand]}" "${I[none]}") |
| two plugins, answers stored | $(m "${I[two]}") | $(ratio "${I[two]}" "${I[none]}") |
| two plugins that infer no task: the proof alone | $(m "${I[proof]}") | $(ratio "${I[proof]}" "${I[none]}") |
| the two shipped plugins (vitest, eslint), matching no file here | $(m "${I[shipped]}") | $(ratio "${I[shipped]}" "${I[none]}") |
| vxd up, the journal's run: no plugins | $(m "${I[jnone]}") | 1 |
| vxd up, the journal's run: two plugins | $(m "${I[jtwo]}") | $(ratio "${I[jtwo]}" "${I[jnone]}") |
"
fi
mn=$(median "${none[@]}") mt=$(median "${two[@]}") cn=$(fmedian "${cnone[@]}") ct=$(fmedian "${ctwo[@]}")
mh=$(median "${hand[@]}") ch=$(fmedian "${chand[@]}")
mjn=$(median "${jnone[@]}") mjt=$(median "${jtwo[@]}") cjn=$(fmedian "${cjnone[@]}") cjt=$(fmedian "${cjtwo[@]}")
mrn=$(median "${rnone[@]}") mrt=$(median "${rtwo[@]}") crn=$(fmedian "${crnone[@]}") crt=$(fmedian "${crtwo[@]}")
cat <<MD
Command: \`bash scripts/bench-plugins.sh\`, $(nproc) CPUs, Linux $(uname -r), $(go version | awk '{print $3}').

| no-op \`run build\`, $N packages (median of $RUNS) | wall ms | × | CPU ms | × |
|---|---:|---:|---:|---:|
| no plugins | $mn | 1 | $cn | 1 |
| no plugins, the same tasks written by hand | $mh | $(ratio "$mh" "$mn") | $ch | $(ratio "$ch" "$cn") |
| two plugins, answers stored (no plugin process started) | $mt | $(ratio "$mt" "$mn") | $ct | $(ratio "$ct" "$cn") |
| vxd up, the journal's run: no plugins | $mjn | 1 | $cjn | 1 |
| vxd up, the journal's run: two plugins | $mjt | $(ratio "$mjt" "$mjn") | $cjt | $(ratio "$cjt" "$cjn") |
| vxd up, its repeat: no plugins | $mrn | 1 | $crn | 1 |
| vxd up, its repeat: two plugins | $mrt | $(ratio "$mrt" "$mrn") | $crt | $(ratio "$crt" "$crn") |

Median of each round's ratio: wall $(fmedian "${r[@]}"), CPU $(fmedian "${cr[@]}"). Goal: ≤ 1.05.
Samples, wall ms: none ${none[*]}; by hand ${hand[*]}; two ${two[*]}. CPU ms: none ${cnone[*]}; by hand ${chand[*]}; two ${ctwo[*]}.
With vxd up, wall ms: journal none ${jnone[*]}; two ${jtwo[*]}; repeat none ${rnone[*]}; two ${rtwo[*]}. CPU ms: journal none ${cjnone[*]}; two ${cjtwo[*]}; repeat none ${crnone[*]}; two ${crtwo[*]}.
Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).
$irows
MD
}
