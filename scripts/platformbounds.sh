#!/usr/bin/env bash
# The platform's memory under the batch attack, on a private PostgreSQL:
# builds vx-platform, runs it, pushes one 20,000-task run and has eight
# clients with a read token post 2 KB batches of get_run/compare_runs at
# once; prints the server's peak RSS (see docs/benchmarks.md, "Bounds").
# Extra flags go to platformbounds.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/vx-platformbounds-XXXXXX)
chmod 755 "$work"
trap 'bash scripts/pgserver.sh stop "$work/pg" 2>/dev/null || true; rm -rf "$work"' EXIT
url=$(bash scripts/pgserver.sh start "$work/pg")
CGO_ENABLED=1 go build -o "$work/vx-platform" ./cmd/vx-platform
go run ./scripts/platformbounds --db "$url" --platform "$work/vx-platform" "$@"
