#!/usr/bin/env bash
# make bench, npm part: what node_modules/.bin/vx costs over the bare
# binary. It packs this platform's npm packages (scripts/release.sh),
# publishes them to a private verdaccio on loopback (tests/npmregistry/node,
# no uplink), installs @vzn/vx with npm (the install script puts the native
# binary in place) and with pnpm (the Node launcher stays), and times
# `vx --version` 20 times each way. The goal: npm's within 10 ms of the
# bare binary (median). docs/benchmarks.md describes it.
set -euo pipefail
BENCH_NAME=bench-npm
# shellcheck source=scripts/bench/lib.sh
source "$(dirname "$0")/bench/lib.sh"
need_tools node npm curl tar
quiet_node_tools
TOOLS=$ROOT/tests/npmregistry/node/node_modules/.bin
[[ -x $TOOLS/verdaccio && -x $TOOLS/pnpm ]] || die "run npm ci in tests/npmregistry/node first"
N=${BENCH_NPM_RUNS:-20}
W=$WORK/npm
rm -rf "$W" && mkdir -p "$W/home"
# The package managers get a HOME of their own (caches, stores, .npmrc);
# go keeps its own caches.
export GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" GOPATH="$(go env GOPATH)" GOENV="$(go env GOENV)"
export HOME=$W/home PATH=$TOOLS:$PATH

log "packing the npm packages for this platform"
VERSION=0.0.0-bench COMMIT=bench DIST=$W/dist COMMANDS="vx vxd" \
  TARGETS="$(go env GOOS)/$(go env GOARCH)" bash "$ROOT/scripts/release.sh" 2>/dev/null

# A private registry on a free port, stopped on exit.
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
cat >"$W/verdaccio.yaml" <<YAML
storage: $W/storage
auth: {htpasswd: {file: $W/htpasswd, max_users: 10}}
uplinks: {}
packages: {'**': {access: \$all, publish: \$authenticated}}
max_body_size: 200mb
log: {type: stdout, format: pretty, level: error}
YAML
"$TOOLS/verdaccio" --config "$W/verdaccio.yaml" --listen "127.0.0.1:$port" >"$W/verdaccio.log" 2>&1 &
registry_pid=$!
trap 'kill $registry_pid 2>/dev/null || true' EXIT
url=http://127.0.0.1:$port/
for _ in $(seq 100); do curl -fs "${url}-/ping" >/dev/null 2>&1 && break; sleep 0.2; done
token=$(curl -fs -XPUT -H 'content-type: application/json' -d '{"name":"bench","password":"bench-password-1"}' \
  "${url}-/user/org.couchdb.user:bench" | node -e 'process.stdin.on("data",d=>console.log(JSON.parse(d).token))')
printf 'registry=%s\n//127.0.0.1:%s/:_authToken=%s\n' "$url" "$port" "$token" >"$HOME/.npmrc"
for f in "$W"/dist/npm/*.tgz; do npm publish --tag latest "$f" >/dev/null 2>&1 || die "npm publish $f"; done

install() { # install MANAGER ARGS...: a fresh workspace in $W/$1 with @vzn/vx
  mkdir -p "$W/$1" && echo '{"name":"bench","private":true}' >"$W/$1/package.json"
  (cd "$W/$1" && "${@:2}" @vzn/vx@0.0.0-bench >/dev/null 2>&1) || die "$1 could not install @vzn/vx"
}
install npm npm install --save-dev
install pnpm pnpm add --save-dev

# us CMD...: wall microseconds of one run of CMD.
us() {
  local start=${EPOCHREALTIME/[.,]/}
  "$@" >/dev/null 2>&1 || die "failed: $*"
  echo $((${EPOCHREALTIME/[.,]/} - start))
}
tar -xzf "$W"/dist/vx_*.tar.gz -C "$W"
ways=("$(echo "$W"/vx_*/vx)" "$W/npm/node_modules/.bin/vx" "$W/pnpm/node_modules/.bin/vx")
# The three ways are sampled in turn, so that a load change on the
# machine falls on each alike.
declare -a s0 s1 s2
for w in "${ways[@]}"; do "$w" --version >/dev/null || die "$w --version failed"; done
for ((i = 0; i < N; i++)); do
  s0+=("$(us "${ways[0]}" --version)"); s1+=("$(us "${ways[1]}" --version)"); s2+=("$(us "${ways[2]}" --version)")
done
msmedian() { fmedian "$@" | awk '{printf "%.1f\n", $1 / 1000}'; }
bare=$(msmedian "${s0[@]}") npmv=$(msmedian "${s1[@]}") pnpmv=$(msmedian "${s2[@]}")
over=$(awk -v a="$npmv" -v b="$bare" 'BEGIN {printf "%.1f", a - b}')
log "vx --version, median of $N (ms): bare binary $bare, after npm install $npmv (+$over), through pnpm's Node launcher $pnpmv"
log "goal: npm install within 10 ms of the bare binary: $(met "$over" 10)"
