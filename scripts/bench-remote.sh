#!/usr/bin/env bash
# Remote cache benchmark: vx against Turborepo on one local
# turborepo-remote-cache server (the npm package tests/remotecache uses),
# on identical copies of a generated workspace (scripts/bench/gen):
#
#   remote hits: a fresh clone of BENCH_REMOTE_N packages (default 200)
#                whose every task is a remote hit (no local cache, no
#                outputs); median of BENCH_REMOTE_RUNS (default 3), each on a
#                new clone. turbo runs `turbo run build --api=URL --token=T
#                --team=T` against the same server.
#   upload cost: vx cold (caches and dist/ wiped) with the remote (every
#                entry uploaded, each run to a team of its own so nothing is
#                already there) against vx cold without it (--cache=local:rw).
#
# Prints a markdown block on stdout. Work lives in scripts/bench/work/
# (gitignored); turbo is installed there as scripts/bench.sh does.
#
# Usage: bash scripts/bench-remote.sh   (make bench runs it after bench.sh)
# Env:   BENCH_REMOTE_N, BENCH_REMOTE_RUNS, TURBO_VERSION, BENCH_WORK,
#        BENCH_VX_BIN, BENCH_STRICT=1 (exit 1 when the target is missed)
set -euo pipefail
{

BENCH_NAME=bench-remote
source "$(dirname "${BASH_SOURCE[0]}")/bench/lib.sh"
N=${BENCH_REMOTE_N:-200}
RUNS=${BENCH_REMOTE_RUNS:-3}
TURBO_VERSION=${TURBO_VERSION:-latest}
TOKEN=bench-token-$$
quiet_node_tools
unset VX_LOG VX_REMOTE_CACHE_URL VX_REMOTE_CACHE_TOKEN VX_REMOTE_CACHE_TEAM VX_REMOTE_CACHE_SIGNATURE_KEY VX_REMOTE_CACHE_READ_ONLY
unset TURBO_API TURBO_TOKEN TURBO_TEAM TURBO_REMOTE_CACHE_SIGNATURE_KEY

need_tools go git node npm
mkdir -p "$WORK/bin" "$WORK/remote" "$WORK/tools"

log "building the workspace generator and vx"
build_gen_and_vx
install_turbo
SERVER_DIR=$ROOT/tests/remotecache/node
if [[ ! -f $SERVER_DIR/node_modules/turborepo-remote-cache/dist/cli.js ]]; then
  log "installing the remote cache server (npm ci in tests/remotecache/node)"
  (cd "$SERVER_DIR" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

# --- the server --------------------------------------------------------------
R=$WORK/remote
rm -rf "$R/storage" "$R"/clone-* "$R"/cold-*
PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
URL=http://127.0.0.1:$PORT
STORAGE_PROVIDER=local STORAGE_PATH=$R/storage STORAGE_PATH_USE_TMP_FOLDER=false TURBO_TOKEN=$TOKEN \
  PORT=$PORT HOST=127.0.0.1 LOG_LEVEL=error ENABLE_STATUS_LOG=false NODE_ENV=production \
  node "$SERVER_DIR/node_modules/turborepo-remote-cache/dist/cli.js" >"$R/server.log" 2>&1 &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  curl -fs "$URL/v8/artifacts/status" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fs "$URL/v8/artifacts/status" >/dev/null || die "the server did not start: $(cat "$R/server.log")"

# --- the workspace -----------------------------------------------------------
SRC=$R/src-$N
if [[ ! -d $SRC/.git ]]; then
  log "generating $N packages"
  rm -rf "$SRC"
  gen_repo "$N" "$SRC" "npm@$(npm --version)"
fi
fresh() { rm -rf "$1"; cp -a "$SRC" "$1"; }
vxenv=(env VX_REMOTE_CACHE_URL="$URL" VX_REMOTE_CACHE_TOKEN="$TOKEN")
run_vx() { (cd "$1" && exec "${vxenv[@]}" VX_REMOTE_CACHE_TEAM="$2" "$VX" run build "${@:3}"); }
run_turbo() { (cd "$1" && exec "$TURBO" run build "${TURBO_FLAGS[@]}" --api="$URL" --token="$TOKEN" --team=turbobench); }

# --- fill the server from one clone each ------------------------------------
log "filling the server: vx and turbo build $N packages once each"
fresh "$R/fill-vx"
run_vx "$R/fill-vx" team_vxbench >/dev/null 2>&1 || die "vx fill run failed"
fresh "$R/fill-turbo"
run_turbo "$R/fill-turbo" >/dev/null 2>&1 || die "turbo fill run failed"

# --- remote hits on fresh clones ---------------------------------------------
vx_hit=() turbo_hit=()
for i in $(seq "$RUNS"); do
  fresh "$R/clone-vx-$i"
  fresh "$R/clone-turbo-$i"
  vx_hit+=("$(ms run_vx "$R/clone-vx-$i" team_vxbench)")
  turbo_hit+=("$(ms run_turbo "$R/clone-turbo-$i")")
  log "remote-hit run $i: vx ${vx_hit[-1]} ms, turbo ${turbo_hit[-1]} ms"
done
fresh "$R/clone-vx-check"
remote=$(run_vx "$R/clone-vx-check" team_vxbench --format json 2>/dev/null | grep -o '"remoteHits": [0-9]*' | grep -o '[0-9]*$' || true)
[[ $remote == "$N" ]] || die "vx: $remote of $N tasks were remote hits on a fresh clone"
fresh "$R/clone-turbo-check"
run_turbo "$R/clone-turbo-check" 2>&1 | grep -Eq "Cached: +$N cached, $N total" || die "turbo: a fresh clone was not fully answered by the remote cache"

# --- the cost of uploading ---------------------------------------------------
cold_local=() cold_remote=()
fresh "$R/cold"
for i in $(seq "$RUNS"); do
  wipe "$R/cold"
  cold_local+=("$(ms run_vx "$R/cold" team_unused --cache=local:rw)")
  wipe "$R/cold"
  cold_remote+=("$(ms run_vx "$R/cold" "team_cold$i")")
  log "cold run $i: vx without remote ${cold_local[-1]} ms, with remote ${cold_remote[-1]} ms"
done
up=$(ls "$R/storage/team_cold1" | wc -l)
[[ $up == "$N" ]] || die "vx: the cold run with the remote uploaded $up of $N artifacts"

vh=$(median "${vx_hit[@]}") th=$(median "${turbo_hit[@]}")
cl=$(median "${cold_local[@]}") cr=$(median "${cold_remote[@]}")
rh=$(ratio "$vh" "$th") mh=$(met "$rh" 0.5)
ru=$(ratio "$cr" "$cl")
bytes=$(du -sb "$R/storage/team_cold1" | awk '{print $1}')

cat <<EOT
### Remote cache: vx vs Turborepo — $(date -u +%Y-%m-%d)

Command: \`bash scripts/bench-remote.sh\` (part of \`make bench\`), $(nproc) CPUs, $(uname -sr), $(go version | awk '{print $3}'), node $(node --version).
One turborepo-remote-cache $(node -p "require('$SERVER_DIR/node_modules/turborepo-remote-cache/package.json').version") server on 127.0.0.1 (local storage); vx $("$VX" version | awk '{print $2}'); turbo $("$TURBO" --version) (\`turbo run build ${TURBO_FLAGS[*]} --api=URL --token=T --team=T\`).

| scenario | vx ms | turbo ms | vx/turbo | target | met |
|---|---:|---:|---:|---:|:-:|
| fresh clone, $N packages, every task a remote hit (median of $RUNS, a new clone each) | $vh | $th | $rh | ≤ 0.50 | $mh |

| vx cold \`run build\`, $N packages (median of $RUNS) | ms |
|---|---:|
| without a remote (\`--cache=local:rw\`) | $cl |
| with the remote: $N entries uploaded ($bytes bytes) | $cr ($ru×) |

Samples (ms): remote hits vx ${vx_hit[*]}; turbo ${turbo_hit[*]}. Cold vx without remote ${cold_local[*]}; with ${cold_remote[*]}.
EOT

if [[ ${BENCH_STRICT:-} == 1 && $mh != yes ]]; then
  exit 1
fi
exit 0
}
