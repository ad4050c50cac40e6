// Package platform_test exercises vx-platform against a private PostgreSQL:
// the store, tokens, ingest, the team tools over /mcp and /v1, tenancy and
// replicas, and vx pushing real runs.
package platform_test

import (
	"os"
	"testing"

	"github.com/vzn/vx/tests/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
