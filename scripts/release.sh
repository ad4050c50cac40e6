#!/usr/bin/env bash
# make release: build vx, vxd and vx-platform for every target this host can
# build, into dist/:
#   dist/vx_<version>_<os>_<arch>.tar.gz   the binaries, LICENSE (when the
#                                          repository has one) and a README
#   dist/vx_<version>_windows_amd64.zip    the same for Windows (.exe files)
#   dist/checksums.txt                     sha256 of every archive
#   dist/npm/*.tgz                         npm pack of @vzn/vx and of one
#                                          package per platform built here
# Linux binaries are static (no dynamic loader: they run on glibc and musl).
# A Linux host builds linux/amd64, linux/arm64 (the other one with the
# Debian cross compiler) and windows/amd64 (static, with Debian's mingw-w64
# compiler); a macOS host builds darwin/arm64 and darwin/amd64.
# TARGETS="linux/amd64" limits the build, COMMANDS="vx vxd" the binaries
# (tests/npm, which needs no vx-platform). VERSION and COMMIT come from make.
# `release.sh finish` only packs @vzn/vx and writes checksums.txt over what
# dist/ already holds (release.yml, after gathering every host's output).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VERSION:?VERSION is set by make release}" "${COMMIT:=unknown}"
GO=${GO:-go}
DIST=${DIST:-dist}
# npm versions are semver without build metadata: 0.1.0-dev+abc1234 is
# published as 0.1.0-dev.gabc1234.
NPM_VERSION=${NPM_VERSION:-${VERSION/+/.g}}
export CGO_ENABLED=1

# host_targets lists the targets this host can build, with a line on
# stderr for one it cannot (and exit 1 on CI, where every one is expected).
host_targets() {
  case "$(uname -s)" in
    Linux) for t in linux/amd64 linux/arm64 windows/amd64; do
        if command -v "$(cc_for "$t")" >/dev/null; then echo "$t"
        else echo "release: skipping $t: no C compiler $(cc_for "$t") (Debian: apt-get install $(cc_package "$t"))" >&2
          [ "${CI:-}" != true ] || exit 1; fi
      done ;;
    Darwin) echo darwin/arm64; echo darwin/amd64 ;;
    *) echo "release: no targets for $(uname -s); build from source instead" >&2; exit 1 ;;
  esac
}

# cc_package is the Debian package of cc_for's compiler.
cc_package() {
  case "$1" in
    windows/*) echo gcc-mingw-w64-x86-64 ;;
    *) if [ "$(cc_for "$1")" = gcc ]; then echo gcc; else echo "gcc-$(gnu_arch "${1#*/}")-linux-gnu libc6-dev-${1#*/}-cross"; fi ;;
  esac
}
gnu_arch() { case "$1" in amd64) echo x86_64 ;; arm64) echo aarch64 ;; esac; }
node_arch() { case "$1" in amd64) echo x64 ;; arm64) echo arm64 ;; esac; }
node_os() { case "$1" in windows) echo win32 ;; *) echo "$1" ;; esac; }
exe_suffix() { if [ "$1" = windows ]; then echo .exe; fi; }
host_arch() { case "$(uname -m)" in x86_64|amd64) echo amd64 ;; aarch64|arm64) echo arm64 ;; esac; }

# cc_for is the C compiler (for go-sqlite3) building target os/arch here.
cc_for() {
  local os=${1%/*} arch=${1#*/}
  case "$os" in
    darwin) echo "clang -arch $(gnu_arch "$arch" | sed 's/aarch64/arm64/')" ;;
    linux) if [ "$arch" = "$(host_arch)" ]; then echo gcc; else echo "$(gnu_arch "$arch")-linux-gnu-gcc"; fi ;;
    windows) echo "$(gnu_arch "$arch")-w64-mingw32-gcc" ;;
  esac
}

# build_target builds the three binaries of one target into $DIST/build/NAME.
build_target() {
  local os=$1 arch=$2 dir=$3
  local ld="-s -w -X github.com/vzn/vx/protocol/version.Version=$VERSION -X github.com/vzn/vx/protocol/version.Commit=$COMMIT"
  local tags=sqlite_omit_load_extension
  if [ "$os" = linux ]; then
    # Static: no loader, no libc to match; netgo and osusergo keep the Go
    # resolver and user lookup, which a static glibc cannot do.
    ld="$ld -linkmode external -extldflags -static"
    tags="$tags,netgo,osusergo"
  fi
  # Windows: static too, so no MinGW runtime DLL has to come along.
  [ "$os" != windows ] || ld="$ld -extldflags -static"
  for cmd in ${COMMANDS:-vx vxd vx-platform}; do
    GOOS=$os GOARCH=$arch CC="$(cc_for "$os/$arch")" \
      $GO build -trimpath -tags "$tags" -ldflags "$ld" -o "$dir/$cmd$(exe_suffix "$os")" "./cmd/$cmd"
    [ "$os" != linux ] || check_static "$dir/$cmd"
  done
}

# check_static refuses a Linux binary that asks for a dynamic loader.
check_static() {
  if readelf -lW "$1" | grep -q INTERP; then
    echo "release: $1 is dynamically linked (it has an INTERP header)" >&2
    exit 1
  fi
}

# archive writes dist/NAME.tar.gz (NAME.zip for Windows): the binaries,
# LICENSE and the README, under one directory NAME/.
archive() {
  local os=$1 arch=$2 name=$3
  if [ -f LICENSE ]; then cp LICENSE "$DIST/build/$name/"; fi
  sed -e "s|@VERSION@|$VERSION|" -e "s|@OS@|$os|" -e "s|@ARCH@|$arch|" scripts/release/README.txt >"$DIST/build/$name/README"
  if [ "$os" = windows ]; then
    (cd "$DIST/build" && zip -qr -X "$DIST/$name.zip" "$name")
  else
    tar -C "$DIST/build" -czf "$DIST/$name.tar.gz" "$name"
  fi
}

# npm_platform packs @vzn/vx-<os>-<cpu>: vx and vxd for one platform, with
# "os" and "cpu" so that npm installs it only there (Node's names: win32
# for windows, x64 for amd64).
npm_platform() {
  local arch=$2 name=$3 x; x=$(exe_suffix "$1")
  local os; os=$(node_os "$1")
  local cpu; cpu=$(node_arch "$arch")
  local pkg="$DIST/npm/build/vx-$os-$cpu"
  rm -rf "$pkg" && mkdir -p "$pkg/bin"
  cp "$DIST/build/$name/vx$x" "$DIST/build/$name/vxd$x" "$pkg/bin/"
  if [ -f LICENSE ]; then cp LICENSE "$pkg/"; fi
  printf '# @vzn/vx-%s-%s\n\nThe vx and vxd binaries for %s/%s, installed by @vzn/vx. Install @vzn/vx, not this package.\n' \
    "$os" "$cpu" "$os" "$cpu" >"$pkg/README.md"
  cat >"$pkg/package.json" <<JSON
{
  "name": "@vzn/vx-$os-$cpu",
  "version": "$NPM_VERSION",
  "description": "vx and vxd for $os/$cpu (installed by @vzn/vx)",
  "repository": "github:vzn/vx",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/", "README.md"$([ -f LICENSE ] && echo ', "LICENSE"')],
  "preferUnplugged": true,
  "publishConfig": {"access": "public"}
}
JSON
  (cd "$pkg" && npm pack --silent --pack-destination "$DIST/npm" >/dev/null)
}

# npm_main packs @vzn/vx: the vx and vxd commands (Node launchers until
# the install script replaces them) and, as optionalDependencies, the
# platform packages of this version in dist/npm (built here, or gathered
# there from the other hosts by release.yml before `release.sh finish`).
npm_main() {
  local pkg="$DIST/npm/build/vx" deps=() f p
  for f in "$DIST"/npm/vzn-vx-*-"$NPM_VERSION".tgz; do
    [ -e "$f" ] || continue
    p=${f##*/vzn-vx-}
    deps+=("\"@vzn/vx-${p%-"$NPM_VERSION".tgz}\": \"$NPM_VERSION\"")
  done
  if [ ${#deps[@]} = 0 ]; then echo "release: no platform package of $NPM_VERSION in $DIST/npm" >&2; exit 1; fi
  rm -rf "$pkg" && mkdir -p "$pkg"
  cp -R npm/vx/. "$pkg/"
  if [ -f LICENSE ]; then cp LICENSE "$pkg/"; fi
  cat >"$pkg/package.json" <<JSON
{
  "name": "@vzn/vx",
  "version": "$NPM_VERSION",
  "description": "vx, a monorepo task runner with a content-addressed cache and run history, and vxd, its MCP daemon",
  "repository": "github:vzn/vx",
  "bin": {"vx": "bin/vx", "vxd": "bin/vxd"},
  "scripts": {"postinstall": "node install.js"},
  "files": ["bin/", "lib/", "install.js", "README.md"$([ -f LICENSE ] && echo ', "LICENSE"')],
  "engines": {"node": ">=16"},
  "optionalDependencies": {$(IFS=,; echo "${deps[*]}")},
  "publishConfig": {"access": "public"}
}
JSON
  (cd "$pkg" && npm pack --silent --pack-destination "$DIST/npm" >/dev/null)
  rm -rf "$pkg"; rmdir "$DIST/npm/build" 2>/dev/null || true
}

# archives lists the archives in the current directory.
archives() { ls -- *.tar.gz *.zip 2>/dev/null; }

# checksums writes dist/checksums.txt in sha256sum's format.
checksums() {
  (cd "$DIST" && if command -v sha256sum >/dev/null; then sha256sum -- $(archives); else shasum -a 256 -- $(archives); fi) >"$DIST/checksums.txt"
}

# finish packs @vzn/vx and writes checksums.txt over what dist/ holds:
# release.yml runs it once the archives and platform packages of every
# host are gathered in dist/.
finish() {
  DIST=$(cd "$DIST" && pwd)
  npm_main
  checksums
}

main() {
  local targets
  targets=${TARGETS:-$(host_targets)} # not in `local`, which would hide its failure
  rm -rf "$DIST" && mkdir -p "$DIST/build" "$DIST/npm"
  DIST=$(cd "$DIST" && pwd)
  [ -f LICENSE ] || echo "release: the repository has no LICENSE file; the archives and packages carry none" >&2
  for t in $targets; do
    local os=${t%/*} arch=${t#*/} name="vx_${VERSION}_${t%/*}_${t#*/}"
    echo "release: building $t" >&2
    mkdir -p "$DIST/build/$name"
    build_target "$os" "$arch" "$DIST/build/$name"
    archive "$os" "$arch" "$name"
    npm_platform "$os" "$arch" "$name"
  done
  rm -rf "$DIST/build" "$DIST/npm/build"
  finish
  ls -l "$DIST" "$DIST/npm" >&2
}

case "${1:-}" in
  "") main ;;
  finish) finish ;;
  *) echo "usage: scripts/release.sh [finish]" >&2; exit 2 ;;
esac
