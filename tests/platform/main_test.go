//go:build !windows

// Package platform_test exercises vx-platform against a private PostgreSQL:
// the store, tokens, ingest, the team tools over /mcp and /v1, tenancy and
// replicas, and vx pushing real runs.
package platform_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/pgtest"
)

var (
	binDir    string
	buildOnce sync.Once
	buildErr  error
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binaries builds vx and vx-platform (and vxd beside vx) once, for the
// tests that run them.
func binaries(t *testing.T) (vx, platform string) {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "vx-platform-test-"); buildErr != nil {
			return
		}
		for _, pkg := range []string{"vx", "vx-platform", "vxd"} { // vxd beside vx, for vx mcp
			if buildErr = harness.Build(filepath.Join(binDir, pkg), "./cmd/"+pkg); buildErr != nil {
				buildErr = fmt.Errorf("building %s: %w", pkg, buildErr)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "vx"), filepath.Join(binDir, "vx-platform")
}
