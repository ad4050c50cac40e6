# shellcheck shell=bash
# What the benchmark scripts (scripts/bench.sh, bench-remote.sh,
# bench-sandbox.sh) share, sourced by each after it sets BENCH_NAME (the
# prefix of its log lines). Sets ROOT (the repository) and WORK
# (BENCH_WORK, default scripts/bench/work) and defines the helpers below;
# it runs nothing else.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${BENCH_WORK:-$ROOT/scripts/bench/work}

log() { echo "$BENCH_NAME: $*" >&2; }
die() { echo "$BENCH_NAME: $*" >&2; exit 1; }

# need_tools TOOL...: die unless each is on PATH.
need_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || die "$tool is required (see .ci/run for what to install)"
  done
}

# quiet_node_tools: no telemetry and no update notices from turbo and npm.
quiet_node_tools() {
  export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 TURBO_NO_UPDATE_NOTIFIER=1 NO_UPDATE_NOTIFIER=1
  export NPM_CONFIG_UPDATE_NOTIFIER=false
}

# build_gen_and_vx: build the workspace generator into $WORK/bin/gen (and
# the floor, scripts/bench/floor, into $WORK/bin/floor), and
# set VX to BENCH_VX_BIN (made absolute) or to vx built from ./cmd/vx.
build_gen_and_vx() {
  (cd "$ROOT" && go build -o "$WORK/bin/gen" ./scripts/bench/gen && go build -o "$WORK/bin/floor" ./scripts/bench/floor)
  if [[ -n ${BENCH_VX_BIN:-} ]]; then
    VX=$(cd "$(dirname "$BENCH_VX_BIN")" && pwd)/$(basename "$BENCH_VX_BIN")
  else
    (cd "$ROOT" && CGO_ENABLED=1 go build -o "$WORK/bin/vx" ./cmd/vx)
    VX=$WORK/bin/vx
  fi
}

# install_turbo: turbo@TURBO_VERSION (default latest) in $WORK/tools unless
# there already; sets TURBO (the binary) and TURBO_FLAGS (for turbo run).
# Yarn 1 beside it, first on PATH, for the workspaces that declare it
# (turbo runs their tasks with `yarn run`); sets YARN1_VERSION.
install_turbo() {
  TURBO_VERSION=${TURBO_VERSION:-latest}
  TURBO=$WORK/tools/node_modules/.bin/turbo
  if [[ ! -x $TURBO || ! -x $WORK/tools/node_modules/.bin/yarn ]] || [[ $TURBO_VERSION != latest && $("$TURBO" --version) != "$TURBO_VERSION" ]]; then
    log "installing turbo@$TURBO_VERSION and yarn@1 from npm into $WORK/tools"
    [[ -f $WORK/tools/package.json ]] || echo '{ "private": true }' >"$WORK/tools/package.json"
    npm install --prefix "$WORK/tools" --no-audit --no-fund --loglevel=error "turbo@$TURBO_VERSION" yarn@1 >&2
  fi
  export PATH=$WORK/tools/node_modules/.bin:$PATH
  YARN1_VERSION=$(yarn --version)
  TURBO_FLAGS=(--ui=stream)
  # turbo 1.x and early 2.x start a daemon unless told not to; later 2.x
  # versions no longer use one for `turbo run` and deprecate the flag.
  if "$TURBO" run --help 2>&1 | grep -q -- '--no-daemon' && ! "$TURBO" run --help 2>&1 | grep -q 'no longer used'; then
    TURBO_FLAGS+=(--no-daemon)
  fi
}

# gen_repo N DIR PACKAGE_MANAGER: generate N packages into DIR (which must
# not exist) and commit them in a new git repository there.
gen_repo() {
  "$WORK/bin/gen" -n "$1" -out "$2" -package-manager "$3"
  git -C "$2" init -q
  # No background auto-gc: it packed loose objects while the caller
  # copied the repository (cp -a of a 1,000-package workspace failed).
  git -C "$2" config gc.auto 0
  git -C "$2" add -A
  git -C "$2" -c user.name=bench -c user.email=bench@localhost -c commit.gpgsign=false commit -qm "generated workspace, $1 packages"
}

# wipe DIR: remove every cache and output of both tools.
wipe() {
  rm -rf "$1/.vx" "$1/.turbo" "$1/node_modules/.cache/turbo"
  find "$1/packages" -mindepth 2 -maxdepth 2 \( -name dist -o -name .turbo \) -exec rm -rf {} +
}

# ms CMD...: wall milliseconds of CMD (its output discarded; failure is fatal).
# The clock is bash's EPOCHREALTIME (microseconds, read without a process):
# two `date` processes per sample added 2–4 ms of the timer's own to every
# figure, a few per cent of a fully cached vx run, nothing of turbo's.
ms() {
  local start end
  [[ -n ${EPOCHREALTIME:-} ]] || die "bash 5 or later is needed (EPOCHREALTIME)"
  start=${EPOCHREALTIME/[.,]/}
  "$@" >/dev/null 2>"$WORK/last-stderr" || { cat "$WORK/last-stderr" >&2; die "failed: $*"; }
  end=${EPOCHREALTIME/[.,]/}
  echo $(((end - start) / 1000))
}

# fmedian is the median of decimal numbers; median, of whole ones
# (rounded down).
fmedian() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.10g\n", (a[NR/2]+a[NR/2+1])/2}'; }
median() { fmedian "$@" | awk '{printf "%d\n", $1}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
met() { awk -v r="$1" -v t="$2" 'BEGIN {print (r <= t) ? "yes" : "NO"}'; }
