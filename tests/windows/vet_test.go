//go:build !windows

package windows_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestVetWindows: GOOS=windows CGO_ENABLED=0 go vet ./... is clean (no
// wine needed). The Linux test harnesses under tests/ and the benchmark
// scripts say so with a !windows build constraint, and are left out.
func TestVetWindows(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("go is not on PATH: %v", err)
		}
		t.Skipf("go is not on PATH (%v)", err)
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("GOOS=windows CGO_ENABLED=0 go vet ./...: %v\n%s", err, out)
	}
}
