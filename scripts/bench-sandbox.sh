#!/usr/bin/env bash
# The sandbox's cost on a cold `vx run build` of the generated workspace
# (scripts/bench/gen, BENCH_COLD_N packages, default 200) in three
# configurations: as generated; with a workspace-wide "sandbox" confining
# every task (mode enforce, network false: Landlock plus the seccomp
# observer); in report mode (the observer alone, what vx init proposes).
# One directory serves all three (its vx.workspace.json is swapped before
# each run): copies in different directories land in different ext4 block
# groups, whose inode allocation costs differ by more than the sandbox does.
# Caches and dist/ are wiped before each run; runs alternate between the
# configurations, in an order rotated every round, so that machine noise
# hits all alike. Prints a markdown
# block: medians of BENCH_COLD_RUNS (default 5) and the ratios.
#
# With BENCH_VX_BIN_B (another vx binary, e.g. main's before a change),
# each round also runs the enforce and report configurations with it, so
# that the two binaries are compared in one series, and the block adds
# their rows and the median of each round's ratio to that round's
# unconfined run (steadier than the ratio of medians when the machine's
# speed drifts). A BENCH_WORK under /dev/shm measures on tmpfs, without
# ext4's inode allocation, which varies from run to run more than the
# sandbox costs.
#
# Usage: bash scripts/bench-sandbox.sh
# Env:   BENCH_COLD_N, BENCH_COLD_RUNS, BENCH_WORK, BENCH_VX_BIN, BENCH_VX_BIN_B
set -euo pipefail
{
BENCH_NAME=bench-sandbox
source "$(dirname "${BASH_SOURCE[0]}")/bench/lib.sh"
N=${BENCH_COLD_N:-200}
RUNS=${BENCH_COLD_RUNS:-5}
unset VX_LOG VX_SANDBOX_FORCE_NO_LANDLOCK

mkdir -p "$WORK/bin" "$WORK/ws"
build_gen_and_vx

ws=$WORK/ws/sandbox-$N
rm -rf "$ws" "$WORK/ws/sandbox-off-$N" "$WORK/ws/sandbox-on-$N" "$WORK/ws/sandbox-report-$N"
gen_repo "$N" "$ws" "npm@10.0.0" >/dev/null
# The configurations: the generated file, and the same with a
# workspace-wide sandbox (every task confined).
cfg=$WORK/ws/sandbox-$N.cfg
mkdir -p "$cfg"
cp "$ws/vx.workspace.json" "$cfg/off"
sed '0,/"projects"/s//"sandbox": { "mode": "enforce", "network": false },\n  "projects"/' "$cfg/off" >"$cfg/enforce"
sed '0,/"projects"/s//"sandbox": { "mode": "report" },\n  "projects"/' "$cfg/off" >"$cfg/report"
cp "$cfg/enforce" "$ws/vx.workspace.json"
(cd "$ws" && "$VX" info | grep -i '^sandbox' >&2)

VXB=
if [[ -n ${BENCH_VX_BIN_B:-} ]]; then
  VXB=$(cd "$(dirname "$BENCH_VX_BIN_B")" && pwd)/$(basename "$BENCH_VX_BIN_B")
fi

# ms CONFIG [VX]: "WALL CPU" in ms of one cold run; CPU is user+sys of vx
# and its tasks (GNU time), steadier than wall time on a shared machine.
# A run that fails stops the script with the run's last lines (ms runs in
# a process substitution, whose failure alone would not stop it: the read
# that follows would, without a word).
ms() {
  cp "$cfg/$1" "$ws/vx.workspace.json"
  wipe "$ws"
  if ! (cd "$ws" && /usr/bin/time -f '%e %U %S' -o "$WORK/time.txt" "${2:-$VX}" run build >"$WORK/run.log" 2>&1); then
    log "a run failed: configuration $1, vx ${2:-$VX}; its last lines:"
    tail -5 "$WORK/run.log" >&2
    kill -TERM $$
    exit 1
  fi
  awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$WORK/time.txt"
}

[[ -x /usr/bin/time ]] || { log "GNU time (/usr/bin/time, Debian package time) is needed"; exit 1; }
off=() on=() rep=() coff=() con=() crep=() onb=() repb=() ron=() rrep=() ronb=() rrepb=()
x() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
ms off >/dev/null; ms enforce >/dev/null; ms report >/dev/null # warm the page cache
# Each round runs every configuration once, in an order rotated by one
# from the round before: a cold run on ext4 costs more after runs that
# freed many inodes in the last seconds, so a fixed order would charge
# whichever configuration came early in every round.
slots=(off enforce report)
[[ -n $VXB ]] && slots+=(enforceB reportB)
declare -A W C
for ((i = 1; i <= RUNS; i++)); do
  for ((k = 0; k < ${#slots[@]}; k++)); do
    slot=${slots[$(((k + i) % ${#slots[@]}))]}
    case $slot in
      enforceB) read -r w c < <(ms enforce "$VXB") ;;
      reportB) read -r w c < <(ms report "$VXB") ;;
      *) read -r w c < <(ms "$slot") ;;
    esac
    W[$slot]=$w C[$slot]=$c
  done
  off+=("${W[off]}") coff+=("${C[off]}")
  on+=("${W[enforce]}") con+=("${C[enforce]}") ron+=("$(x "${W[enforce]}" "${W[off]}")")
  rep+=("${W[report]}") crep+=("${C[report]}") rrep+=("$(x "${W[report]}" "${W[off]}")")
  log "run $i: off ${off[-1]} ms (cpu ${coff[-1]}), enforce ${on[-1]} (${con[-1]}), report ${rep[-1]} (${crep[-1]})"
  if [[ -n $VXB ]]; then
    onb+=("${W[enforceB]}") ronb+=("$(x "${W[enforceB]}" "${W[off]}")")
    repb+=("${W[reportB]}") rrepb+=("$(x "${W[reportB]}" "${W[off]}")")
    log "run $i, BENCH_VX_BIN_B: enforce ${onb[-1]} ms, report ${repb[-1]}"
  fi
done
mo=$(median "${off[@]}") mn=$(median "${on[@]}") mr=$(median "${rep[@]}")
co=$(median "${coff[@]}") cn=$(median "${con[@]}") cr=$(median "${crep[@]}")
cat <<MD
Command: \`bash scripts/bench-sandbox.sh\`, $(nproc) CPUs, Linux $(uname -r), $(go version | awk '{print $3}').

| cold \`run build\`, $N packages (median of $RUNS, caches and dist/ wiped) | wall ms | × | CPU ms | × |
|---|---:|---:|---:|---:|
| no sandbox | $mo | 1 | $co | 1 |
| every task sandboxed, enforce, network false | $mn | $(x "$mn" "$mo") | $cn | $(x "$cn" "$co") |
| every task sandboxed, report | $mr | $(x "$mr" "$mo") | $cr | $(x "$cr" "$co") |

Median of each round's ratio to its unconfined run, wall: enforce $(fmedian "${ron[@]}"), report $(fmedian "${rrep[@]}").
$(if [[ -n $VXB ]]; then
  echo
  echo "BENCH_VX_BIN_B ($VXB), same rounds: enforce $(median "${onb[@]}") ms wall ($(x "$(median "${onb[@]}")" "$mo")×, round ratios $(fmedian "${ronb[@]}")), report $(median "${repb[@]}") ms ($(x "$(median "${repb[@]}")" "$mo")×, round ratios $(fmedian "${rrepb[@]}"))."
fi)

Goal: enforce ≤ 1.05× wall. Samples, wall ms: off ${off[*]}; enforce ${on[*]}; report ${rep[*]}.
CPU ms: off ${coff[*]}; enforce ${con[*]}; report ${crep[*]}. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).
MD
}
