#!/usr/bin/env bash
# The platform benchmark on a private PostgreSQL: seeds 100 workspaces ×
# 100 runs × 100 tasks through POST /v1/runs and times each team tool over
# POST /mcp (see docs/benchmarks.md). Extra flags go to platformbench.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/vx-platformbench-XXXXXX)
chmod 755 "$work"
trap 'bash scripts/pgserver.sh stop "$work/pg" 2>/dev/null || true; rm -rf "$work"' EXIT
url=$(bash scripts/pgserver.sh start "$work/pg")
go run ./scripts/platformbench --db "$url" "$@"
