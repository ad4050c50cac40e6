#!/usr/bin/env bash
# The sandbox's cost on a cold `vx run build`: two identical copies of the
# generated workspace (scripts/bench/gen, BENCH_COLD_N packages, default
# 200), one as generated and one whose workspace-wide "sandbox" confines
# every task (mode enforce, network false: Landlock plus the seccomp
# observer). Caches and dist/ are wiped before each run; runs alternate
# between the two copies so that machine noise hits both alike. Prints a
# markdown block: medians of BENCH_COLD_RUNS (default 5) and the ratio.
#
# Usage: bash scripts/bench-sandbox.sh
# Env:   BENCH_COLD_N, BENCH_COLD_RUNS, BENCH_WORK, BENCH_VX_BIN
set -euo pipefail
{
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${BENCH_WORK:-$ROOT/scripts/bench/work}
N=${BENCH_COLD_N:-200}
RUNS=${BENCH_COLD_RUNS:-5}
unset VX_LOG VX_SANDBOX_FORCE_NO_LANDLOCK
log() { echo "bench-sandbox: $*" >&2; }

mkdir -p "$WORK/bin" "$WORK/ws"
(cd "$ROOT" && go build -o "$WORK/bin/gen" ./scripts/bench/gen)
if [[ -n ${BENCH_VX_BIN:-} ]]; then
  VX=$(cd "$(dirname "$BENCH_VX_BIN")" && pwd)/$(basename "$BENCH_VX_BIN")
else
  (cd "$ROOT" && CGO_ENABLED=1 go build -o "$WORK/bin/vx" ./cmd/vx)
  VX=$WORK/bin/vx
fi

plain=$WORK/ws/sandbox-off-$N boxed=$WORK/ws/sandbox-on-$N
rm -rf "$plain" "$boxed"
"$WORK/bin/gen" -n "$N" -out "$plain" -package-manager "npm@10.0.0" >/dev/null
git -C "$plain" init -q
git -C "$plain" add -A
git -C "$plain" -c user.name=bench -c user.email=bench@localhost -c commit.gpgsign=false commit -qm "generated workspace, $N packages"
cp -a "$plain" "$boxed"
# The same file with a workspace-wide sandbox: every task confined.
sed -i '0,/"projects"/s//"sandbox": { "mode": "enforce", "network": false },\n  "projects"/' "$boxed/vx.workspace.json"
(cd "$boxed" && "$VX" info | grep -i '^sandbox' >&2)

wipe() {
  rm -rf "$1/.vx"
  find "$1/packages" -mindepth 2 -maxdepth 2 -name dist -exec rm -rf {} +
}
ms() { local s e; wipe "$1"; s=$(date +%s%N); (cd "$1" && "$VX" run build >/dev/null); e=$(date +%s%N); echo $(((e - s) / 1000000)); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }

off=() on=()
ms "$plain" >/dev/null; ms "$boxed" >/dev/null # warm the page cache
for ((i = 1; i <= RUNS; i++)); do
  off+=("$(ms "$plain")")
  on+=("$(ms "$boxed")")
  log "run $i: off ${off[-1]} ms, on ${on[-1]} ms"
done
mo=$(median "${off[@]}") mn=$(median "${on[@]}")
ratio=$(awk -v a="$mn" -v b="$mo" 'BEGIN { printf "%.3f", a / b }')
cat <<MD
Command: \`bash scripts/bench-sandbox.sh\`, $(nproc) CPUs, Linux $(uname -r), $(go version | awk '{print $3}').

| cold \`run build\`, $N packages (median of $RUNS, caches and dist/ wiped) | ms |
|---|---:|
| no sandbox | $mo |
| every task sandboxed (enforce, network false) | $mn |
| ratio | $ratio (goal ≤ 1.05) |

Samples (ms): off ${off[*]}; on ${on[*]}.
MD
}
