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
# configurations so that machine noise hits all alike. Prints a markdown
# block: medians of BENCH_COLD_RUNS (default 5) and the ratios.
#
# Usage: bash scripts/bench-sandbox.sh
# Env:   BENCH_COLD_N, BENCH_COLD_RUNS, BENCH_WORK, BENCH_VX_BIN
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

# ms CONFIG: "WALL CPU" in ms of one cold run; CPU is user+sys of vx and
# its tasks (GNU time), steadier than wall time on a shared machine.
ms() {
  cp "$cfg/$1" "$ws/vx.workspace.json"
  wipe "$ws"
  (cd "$ws" && /usr/bin/time -f '%e %U %S' -o "$WORK/time.txt" "$VX" run build >/dev/null)
  awk '{ printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000 }' "$WORK/time.txt"
}

[[ -x /usr/bin/time ]] || { log "GNU time (/usr/bin/time, Debian package time) is needed"; exit 1; }
off=() on=() rep=() coff=() con=() crep=()
ms off >/dev/null; ms enforce >/dev/null; ms report >/dev/null # warm the page cache
for ((i = 1; i <= RUNS; i++)); do
  read -r w c < <(ms off); off+=("$w"); coff+=("$c")
  read -r w c < <(ms enforce); on+=("$w"); con+=("$c")
  read -r w c < <(ms report); rep+=("$w"); crep+=("$c")
  log "run $i: off ${off[-1]} ms (cpu ${coff[-1]}), enforce ${on[-1]} (${con[-1]}), report ${rep[-1]} (${crep[-1]})"
done
mo=$(median "${off[@]}") mn=$(median "${on[@]}") mr=$(median "${rep[@]}")
co=$(median "${coff[@]}") cn=$(median "${con[@]}") cr=$(median "${crep[@]}")
x() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
cat <<MD
Command: \`bash scripts/bench-sandbox.sh\`, $(nproc) CPUs, Linux $(uname -r), $(go version | awk '{print $3}').

| cold \`run build\`, $N packages (median of $RUNS, caches and dist/ wiped) | wall ms | × | CPU ms | × |
|---|---:|---:|---:|---:|
| no sandbox | $mo | 1 | $co | 1 |
| every task sandboxed, enforce, network false | $mn | $(x "$mn" "$mo") | $cn | $(x "$cn" "$co") |
| every task sandboxed, report | $mr | $(x "$mr" "$mo") | $cr | $(x "$cr" "$co") |

Goal: enforce ≤ 1.05× wall. Samples, wall ms: off ${off[*]}; enforce ${on[*]}; report ${rep[*]}.
CPU ms: off ${coff[*]}; enforce ${con[*]}; report ${crep[*]}. Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg).
MD
}
