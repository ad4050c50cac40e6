#!/usr/bin/env bash
# A private PostgreSQL for the demo and the platform benchmark:
#   scripts/pgserver.sh start DIR   initdb into DIR (if new), start on a free port, print the URL
#   scripts/pgserver.sh stop DIR    stop it
# Runs the server as the postgres user when invoked as root (DIR's parents
# must then be searchable by postgres).
set -euo pipefail
cmd=${1:?usage: pgserver.sh start|stop DIR}
dir=${2:?usage: pgserver.sh start|stop DIR}
bin=$(pg_config --bindir 2>/dev/null || true)
[ -x "$bin/initdb" ] || bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "pgserver: no PostgreSQL found (install Debian's postgresql)" >&2; exit 1; }
as() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$cmd" in
start)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
  fi
  # A port nothing listens on.
  while :; do
    port=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
  done
  as "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
  echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  ;;
stop)
  as "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
  ;;
*) echo "usage: pgserver.sh start|stop DIR" >&2; exit 2 ;;
esac
