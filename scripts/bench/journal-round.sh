#!/usr/bin/env bash
# One round of the journal's comparison (docs/benchmarks.md, "The
# journal's run at 10,000 packages") in the vx workspace WS, with the vx and
# vxd in BIN: the floor, vx without vxd, `vxd start` and warm-up (until a
# run takes its files from the change journal), the journal's run (in an
# environment of its own, so no repeat), its repeat, `vxd stop`. Prints the
# wall ms, CPU ms (user + system) and peak RSS MB of each vx run, and vxd's
# CPU ms during the journal's run (and half a second after) and in the half
# second before it. Linux (reads /proc). PROF, when given, is a prefix for
# CPU profiles of the run without vxd and the journal's run.
#
# Usage: bash scripts/bench/journal-round.sh BIN WS TAG I [PROF]
#   FLOOR: the floor binary (go build -o FLOOR ./scripts/bench/floor)
set -u
B=$1 WS=$2 TAG=$3 I=$4 PROF=${5:-}
FLOOR=${FLOOR:-$(dirname "$0")/work/bin/floor}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
T() { /usr/bin/time -f "%e %U %S %M" -o "$out" "$@" >/dev/null 2>&1; awk '{printf "%d %d %d", $1*1000, ($2+$3)*1000, $4/1024}' "$out"; }
cpu() { awk '{print ($14+$15)*10}' "/proc/$1/stat"; }
cd "$WS" || exit 1
f=$(T "$FLOOR")
p=(); [[ -n $PROF ]] && p=(env "VX_CPUPROFILE=$PROF.novxd.$I")
v=$(T "${p[@]}" "$B/vx" run build)
"$B/vxd" start >/dev/null 2>&1 || { echo "vxd start failed"; exit 1; }
for k in 1 2 3 4 5 6 7 8 9 10; do
  how=$(VX_LOG=debug "$B/vx" run build 2>&1 >/dev/null)
  grep -qE '"files":"journal:|"repeat":true' <<<"$how" && break
done
pid=$(pgrep -f "$B/vxd serve --root $WS\$" | head -1)
c0=$(cpu "$pid"); sleep 0.5; c1=$(cpu "$pid")
p=(); [[ -n $PROF ]] && p=(env "VX_CPUPROFILE=$PROF.journal.$I")
j=$(BENCH_ROUND=$TAG$I T "${p[@]}" "$B/vx" run build)
sleep 0.5; c2=$(cpu "$pid")
r=$(BENCH_ROUND=$TAG$I T "$B/vx" run build)
"$B/vxd" stop >/dev/null 2>&1
echo "$TAG $(basename "$WS") floor ${f%% *} | vx $v | journal $j | repeat $r | vxd during $((c2-c1)) before $((c1-c0)) warm $k"
