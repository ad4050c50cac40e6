#!/usr/bin/env bash
# vx against Turborepo, side by side in one run, on identical copies of a
# generated workspace (scripts/bench/gen):
#
#   cached: `run build` on BENCH_CACHED_N packages (default 1000), every task
#           a hit; median of BENCH_CACHED_RUNS (default 5) after a warm-up.
#           In each round vx runs three times: without a daemon, and (after
#           turbo) twice with vxd up in its workspace (vxd is started,
#           warmed up until a run takes its change journal, and stopped
#           each round): first in an environment no run had before, so it
#           asks the journal what changed instead of statting every input
#           but may not repeat a run, then the same request again, which
#           repeats that run (daemon/journal, "Repeating a fully cached run").
#   large:  the same, in the same rounds, on BENCH_LARGE_N packages (default
#           10000; 0 leaves it out), vx only unless BENCH_LARGE_TURBO=1
#           (turbo's cache fill takes an hour or more): without a daemon,
#           with vxd up, its repeat, and the floor. Its workspace declares
#           Yarn 1 as its package manager where the 1,000 one declares npm:
#           turbo runs each task with `<package manager> run`, and
#           `npm run` reads the whole workspace each time (4.5 s of CPU a
#           task at 10,000 packages here, 0.3 s at 50: a fill of 12 CPU-hours),
#           `yarn run` does not (0.3 s at 10,000). Nothing else differs,
#           and neither tool starts a package manager in a cached run;
#           each against its own floor, and the growth of vx/floor from
#           BENCH_CACHED_N to BENCH_LARGE_N (target ≤ 1.25), with the peak
#           RSS of one no-op run (GNU time, when installed).
#   cold:   `run build` on BENCH_COLD_N packages (default 200), caches and
#           outputs wiped before each run; median of BENCH_COLD_RUNS (3).
#
# It also checks, with strace when installed, that `vx run` opens no
# network socket and starts no daemon. Prints a markdown block on stdout.
# Everything it makes lives in scripts/bench/work/ (gitignored): the vx
# binary, turbo installed from npm, the workspaces and the strace log.
#
# Duration: dominated by turbo, which starts `npm run build` per task (about
# 1-2 s of CPU each): on 2 CPUs, filling turbo's cache for 1000 packages
# takes ~35 min and each cold 200-package turbo run several minutes; vx's
# side takes under a minute in all at 1,000 packages, and some 5 more at
# 10,000 (generating and filling them, then ~30 s a round). Smaller N for a
# quick look:
#   BENCH_CACHED_N=100 BENCH_COLD_N=50 BENCH_LARGE_N=0 bash scripts/bench.sh
#
# Usage: bash scripts/bench.sh   (or: make bench)
# Env:   BENCH_CACHED_N, BENCH_COLD_N, BENCH_CACHED_RUNS, BENCH_COLD_RUNS,
#        TURBO_VERSION (npm version spec, default latest), BENCH_WORK,
#        BENCH_VX_BIN (measure this vx binary instead of building ./cmd/vx),
#        BENCH_STRICT=1 (exit 1 when a target is missed),
#        BENCH_REUSE=1 (keep workspaces already generated under BENCH_WORK,
#        with their caches: skips the long turbo fill; the generator is
#        deterministic, so they are the same trees),
#        BENCH_LARGE_TURBO=1 (turbo's fully cached run at BENCH_LARGE_N too,
#        in the same rounds; its first fill runs `yarn run` once per
#        package, 50 CPU-minutes at 10,000: keep it with BENCH_REUSE=1)
set -euo pipefail

# The whole script is one compound command, read before any of it runs,
# so editing the file during a (long) run cannot change what runs.
{

BENCH_NAME=bench
source "$(dirname "${BASH_SOURCE[0]}")/bench/lib.sh"
N_CACHED=${BENCH_CACHED_N:-1000}
N_COLD=${BENCH_COLD_N:-200}
N_LARGE=${BENCH_LARGE_N:-10000}
RUNS_CACHED=${BENCH_CACHED_RUNS:-5}
RUNS_COLD=${BENCH_COLD_RUNS:-3}
TURBO_VERSION=${TURBO_VERSION:-latest}

quiet_node_tools
unset VX_LOG
need_tools go git node npm

mkdir -p "$WORK/bin" "$WORK/ws" "$WORK/tools"
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

log "building the workspace generator and vx"
build_gen_and_vx
# vxd beside vx (as installed); built when BENCH_VX_BIN has none beside it.
VXDBIN=$(dirname "$VX")/vxd
if [[ -z ${BENCH_VX_BIN:-} || ! -x $VXDBIN ]]; then
  (cd "$ROOT" && CGO_ENABLED=1 go build -o "$WORK/bin/vxd" ./cmd/vxd)
  VXDBIN=$WORK/bin/vxd
fi

install_turbo

# make_ws N PACKAGE_MANAGER [vx]: generate, commit, and copy the workspace
# for vx and (but with "vx") for turbo; reused (BENCH_REUSE=1) only when it
# declares the same package manager.
make_ws() {
  local n=$1 pm=$2 src=$WORK/ws/src-$1
  if [[ ${BENCH_REUSE:-} == 1 && -d $WORK/ws/vx-$n/.git && (${3:-} == vx || -d $WORK/ws/turbo-$n/.git) ]] &&
    grep -q "\"packageManager\": \"$pm\"" "$WORK/ws/vx-$n/package.json"; then
    log "reusing the $n-package workspaces in $WORK/ws"
    return
  fi
  rm -rf "$src" "$WORK/ws/vx-$n" "$WORK/ws/turbo-$n"
  gen_repo "$n" "$src" "$pm"
  if [[ ${3:-} == vx ]]; then
    mv "$src" "$WORK/ws/vx-$n"
    return
  fi
  cp -a "$src" "$WORK/ws/vx-$n"
  cp -a "$src" "$WORK/ws/turbo-$n"
}

run_vx() { (cd "$1" && exec "$VX" run build); }
run_turbo() { (cd "$1" && exec "$TURBO" run build "${TURBO_FLAGS[@]}"); }
# run_floor: git ls-files and an lstat of every file it lists, in one process.
run_floor() { (cd "$1" && exec "$WORK/bin/floor"); }

# --- cached, N_CACHED packages ---------------------------------------------
log "generating $N_CACHED packages"
make_ws "$N_CACHED" "npm@$(npm --version)"
VXC=$WORK/ws/vx-$N_CACHED TUC=$WORK/ws/turbo-$N_CACHED
log "filling both caches, then one warm-up run each"
run_vx "$VXC" >/dev/null 2>&1 || die "vx run build failed in $VXC"
run_turbo "$TUC" >/dev/null 2>&1 || die "turbo run build failed in $TUC"
ms run_vx "$VXC" >/dev/null
ms run_turbo "$TUC" >/dev/null
VXL=
if [[ $N_LARGE -gt 0 ]]; then
  log "generating $N_LARGE packages, filling vx's cache"
  make_ws "$N_LARGE" "yarn@$YARN1_VERSION" "$([[ ${BENCH_LARGE_TURBO:-} == 1 ]] || echo vx)"
  VXL=$WORK/ws/vx-$N_LARGE
  run_vx "$VXL" >/dev/null 2>&1 || die "vx run build failed in $VXL"
  ms run_vx "$VXL" >/dev/null
fi
TUL=
if [[ $N_LARGE -gt 0 && ${BENCH_LARGE_TURBO:-} == 1 ]]; then
  TUL=$WORK/ws/turbo-$N_LARGE
  log "filling turbo's cache at $N_LARGE packages (yarn run once per package: long, kept by BENCH_REUSE=1)"
  run_turbo "$TUL" >/dev/null 2>&1 || die "turbo run build failed in $TUL"
  ms run_turbo "$TUL" >/dev/null
fi
# vxd_up [WS]: start vxd in the vx workspace WS (default $VXC) and warm up
# until a run takes its files from the change journal, or repeats a run
# that did (the first run of a new vxd has no token of its epoch and stats
# everything).
vxd_up() {
  local ws=${1:-$VXC} how
  (cd "$ws" && "$VXDBIN" start >/dev/null) || die "vxd start failed in $ws"
  for _ in $(seq 20); do
    how=$(cd "$ws" && VX_LOG=debug "$VX" run build 2>&1 >/dev/null) || die "vx run build failed in $ws with vxd up"
    # A run of the journal, or one that repeats such a run.
    grep -qE '"files":"journal:|"repeat":true' <<<"$how" && return
    sleep 0.2
  done
  die "vx never took its files from vxd's change journal in $ws"
}
vxd_down() { (cd "${1:-$VXC}" && "$VXDBIN" stop >/dev/null) || die "vxd stop failed in ${1:-$VXC}"; }
trap '(cd "$VXC" && "$VXDBIN" stop >/dev/null 2>&1) || true; [[ -z $VXL ]] || (cd "$VXL" && "$VXDBIN" stop >/dev/null 2>&1) || true' EXIT
# Each round: vx without a daemon, turbo, vx with vxd up (its journal, in
# an environment of its own), the same again (a repeat).
vx_cached=() turbo_cached=() vxd_cached=() vxr_cached=() floor_cached=()
vx_large=() vxd_large=() vxr_large=() floor_large=() turbo_large=()
for i in $(seq "$RUNS_CACHED"); do
  floor_cached+=("$(ms run_floor "$VXC")")
  vx_cached+=("$(ms run_vx "$VXC")")
  turbo_cached+=("$(ms run_turbo "$TUC")")
  vxd_up
  vxd_cached+=("$(BENCH_ROUND=$i ms run_vx "$VXC")")
  vxr_cached+=("$(BENCH_ROUND=$i ms run_vx "$VXC")")
  vxd_down
  log "cached run $i: vx ${vx_cached[-1]} ms, turbo ${turbo_cached[-1]} ms, vx with vxd up ${vxd_cached[-1]} ms, its repeat ${vxr_cached[-1]} ms"
  [[ -n $VXL ]] || continue
  floor_large+=("$(ms run_floor "$VXL")")
  vx_large+=("$(ms run_vx "$VXL")")
  [[ -z $TUL ]] || turbo_large+=("$(ms run_turbo "$TUL")")
  vxd_up "$VXL"
  vxd_large+=("$(BENCH_ROUND=$i ms run_vx "$VXL")")
  vxr_large+=("$(BENCH_ROUND=$i ms run_vx "$VXL")")
  vxd_down "$VXL"
  log "cached run $i, $N_LARGE packages: floor ${floor_large[-1]} ms, vx ${vx_large[-1]} ms, with vxd up ${vxd_large[-1]} ms, its repeat ${vxr_large[-1]} ms${TUL:+, turbo ${turbo_large[-1]} ms}"
done
trap - EXIT
# Both really were fully cached, vx with and without vxd.
hits=$(cd "$VXC" && "$VX" run build --format json 2>/dev/null | grep -c '"cache": "hit"' || true)
[[ $hits == "$N_CACHED" ]] || die "vx: $hits of $N_CACHED tasks were hits in the cached scenario"
vxd_up
hits=$(cd "$VXC" && BENCH_ROUND=check "$VX" run build --format json 2>/dev/null | grep -c '"cache": "hit"' || true)
# The same command line twice: the second repeats the first.
(cd "$VXC" && BENCH_ROUND=check "$VX" run build >/dev/null 2>&1) || die "vx run build failed in $VXC with vxd up"
repeated=$(cd "$VXC" && BENCH_ROUND=check "$VX" run build 2>/dev/null | grep -c '^ Repeat: run ' || true)
vxd_down
[[ $hits == "$N_CACHED" ]] || die "vx with vxd: $hits of $N_CACHED tasks were hits in the cached scenario"
[[ $repeated == 1 ]] || die "vx with vxd: the same request again did not repeat the run before it"
run_turbo "$TUC" 2>&1 | grep -Eq "Cached: +$N_CACHED cached, $N_CACHED total" || die "turbo: the cached scenario was not fully cached"
large_rss="not measured (GNU time is not installed)"
if [[ -n $VXL ]]; then
  hits=$(cd "$VXL" && "$VX" run build --format json 2>/dev/null | grep -c '"cache": "hit"' || true)
  [[ $hits == "$N_LARGE" ]] || die "vx: $hits of $N_LARGE tasks were hits in the large cached scenario"
  vxd_up "$VXL"
  (cd "$VXL" && BENCH_ROUND=check "$VX" run build >/dev/null 2>&1) || die "vx run build failed in $VXL with vxd up"
  repeated=$(cd "$VXL" && BENCH_ROUND=check "$VX" run build 2>/dev/null | grep -c '^ Repeat: run ' || true)
  vxd_down "$VXL"
  [[ $repeated == 1 ]] || die "vx with vxd, $N_LARGE packages: the same request again did not repeat the run before it"
  if [[ -n $TUL ]]; then
    run_turbo "$TUL" 2>&1 | grep -Eq "Cached: +$N_LARGE cached, $N_LARGE total" || die "turbo: the large cached scenario was not fully cached"
  fi
  if [[ -x /usr/bin/time ]]; then
    large_rss="$( (cd "$VXL" && /usr/bin/time -f %M "$VX" run build 2>&1 >/dev/null | tail -1) ) KB"
  fi
fi

# --- cold, N_COLD packages -------------------------------------------------
log "generating $N_COLD packages"
make_ws "$N_COLD" "npm@$(npm --version)"
VXD=$WORK/ws/vx-$N_COLD TUD=$WORK/ws/turbo-$N_COLD
vx_cold=() turbo_cold=()
for i in $(seq "$RUNS_COLD"); do
  wipe "$VXD"
  wipe "$TUD"
  vx_cold+=("$(ms run_vx "$VXD")")
  turbo_cold+=("$(ms run_turbo "$TUD")")
  log "cold run $i: vx ${vx_cold[-1]} ms, turbo ${turbo_cold[-1]} ms"
done
misses=$(cd "$VXD" && wipe . && "$VX" run build --format json 2>/dev/null | grep -c '"cache": "miss"' || true)
[[ $misses == "$N_COLD" ]] || die "vx: $misses of $N_COLD tasks were misses after a wipe"

# --- no network, no daemon ------------------------------------------------
if command -v strace >/dev/null; then
  wipe "$VXD"
  trace=$WORK/strace.txt
  (cd "$VXD" && strace -f -qq -e trace=%network,execve -e signal=none -o "$trace" "$VX" run build >/dev/null 2>&1) || die "vx run build under strace failed"
  calls=$(grep -E '^[0-9]+ +[a-z_0-9]+\(' "$trace" | grep -vc 'execve(' || true)
  inet=$(grep -v 'execve(' "$trace" | grep -Ec 'AF_INET6?|sin6?_port' || true)
  if [[ $inet == 0 ]]; then
    network="none: strace -f saw $calls network syscalls by vx and its tasks, none on an IP socket ($trace)"
  else
    network="VIOLATION: $inet syscalls on IP sockets, see $trace"
  fi
  if grep -q 'execve("[^"]*vxd"' "$trace" || [[ -e $VXD/.vx/daemon ]]; then
    daemon="VIOLATION: vx run executed vxd or created .vx/daemon (see $trace)"
  else
    daemon="none started (strace saw no execve of vxd; no .vx/daemon)"
  fi
else
  network="not checked: strace is not installed"
  daemon="not checked by strace; .vx/daemon: $([[ -e $VXD/.vx/daemon ]] && echo "EXISTS (violation)" || echo absent)"
fi

# --- report ------------------------------------------------------------------
vc=$(median "${vx_cached[@]}") tc=$(median "${turbo_cached[@]}")
vd=$(median "${vx_cold[@]}") td=$(median "${turbo_cold[@]}")
rc=$(ratio "$vc" "$tc") rd=$(ratio "$vd" "$td")
mc=$(met "$rc" 0.5) md=$(met "$rd" 0.2) mn=$(met "$rc" 0.1)
vj=$(median "${vxd_cached[@]}") vr=$(median "${vxr_cached[@]}") vf=$(median "${floor_cached[@]}")
rj=$(ratio "$vj" "$tc") rr=$(ratio "$vr" "$tc") rf=$(ratio "$vf" "$tc")
cpus=$(nproc 2>/dev/null || echo "?")

# large_report: the BENCH_LARGE_N rows, each against its own floor.
large_report() {
  [[ -n $VXL ]] || return 0
  local fl vl jl rl g
  fl=$(median "${floor_large[@]}") vl=$(median "${vx_large[@]}") jl=$(median "${vxd_large[@]}") rl=$(median "${vxr_large[@]}")
  g=$(awk -v a="$vl" -v b="$fl" -v c="$vc" -v d="$vf" 'BEGIN {printf "%.2f", (a/b)/(c/d)}')
  cat <<EOT

| fully cached \`run build\`, in the same rounds (median of $RUNS_CACHED) | floor ms | vx ms | vx/floor | with vxd up ms | /floor | repeat ms | /floor |
|---|---:|---:|---:|---:|---:|---:|---:|
| $N_CACHED packages | $vf | $vc | $(ratio "$vc" "$vf") | $vj | $(ratio "$vj" "$vf") | $vr | $(ratio "$vr" "$vf") |
| $N_LARGE packages | $fl | $vl | $(ratio "$vl" "$fl") | $jl | $(ratio "$jl" "$fl") | $rl | $(ratio "$rl" "$fl") |

vx/floor at $N_LARGE over vx/floor at $N_CACHED: $g (target ≤ 1.25: $(met "$g" 1.25)). Peak RSS of a no-op run at $N_LARGE packages: $large_rss.
Samples (ms), $N_LARGE packages: floor ${floor_large[*]}; vx ${vx_large[*]}; with vxd up ${vxd_large[*]}; its repeat ${vxr_large[*]}.
EOT
  [[ -n $TUL ]] || return 0
  local tl
  tl=$(median "${turbo_large[@]}")
  cat <<EOT
Turbo's fully cached run at $N_LARGE packages, in the same rounds (BENCH_LARGE_TURBO=1, median of $RUNS_CACHED): $tl ms; vx/turbo $(ratio "$vl" "$tl"), turbo/floor $(ratio "$tl" "$fl"). Samples (ms): ${turbo_large[*]}.
EOT
}

cat <<EOF
### vx vs Turborepo — $(date -u +%Y-%m-%d)

Command: \`bash scripts/bench.sh\` (\`make bench\`), $cpus CPUs, $(uname -sr), $(go version | awk '{print $3}'), node $(node --version); load average $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?") at the end.
vx $("$VX" version | awk '{print $2}') (default workers: one per CPU), turbo $("$TURBO" --version) (\`turbo run build ${TURBO_FLAGS[*]}\`, default concurrency), both with their default output.

| scenario | vx ms | turbo ms | vx/turbo | target | met |
|---|---:|---:|---:|---:|:-:|
| fully cached \`run build\`, $N_CACHED packages (median of $RUNS_CACHED after a warm-up) | $vc | $tc | $rc | ≤ 0.50 | $mc |
| ↳ the same no-op run against the issue-15 goal (no daemon) | $vc | $tc | $rc | ≤ 0.10 | $mn |
| the same no-op run with vxd up (its change journal; in the same rounds, median of $RUNS_CACHED) | $vj | $tc | $rj | | |
| ↳ the same request again with vxd up (a repeat of that run; median of $RUNS_CACHED) | $vr | $tc | $rr | | |
| the floor: \`git ls-files\` and an lstat of every file, one process (median of $RUNS_CACHED) | $vf | $tc | $rf | | |
| cold \`run build\`, $N_COLD packages (median of $RUNS_COLD, caches and dist/ wiped) | $vd | $td | $rd | ≤ 0.20 | $md |

With vxd up against the floor: the journal's run $(ratio "$vj" "$vf")×, the repeat $(ratio "$vr" "$vf")×.
$(large_report)

Samples (ms): cached vx ${vx_cached[*]}; turbo ${turbo_cached[*]}; vx with vxd up ${vxd_cached[*]}; its repeat ${vxr_cached[*]}; floor ${floor_cached[*]}. Cold vx ${vx_cold[*]}; turbo ${turbo_cold[*]}.
Network during \`vx run\`: $network.
Daemon: $daemon.
EOF

if [[ ${BENCH_STRICT:-} == 1 && ($mc != yes || $md != yes || $mn != yes) ]]; then
  exit 1
fi
exit 0
}
