// Package workflows_test checks the hosted CI and release workflows
// (.github/workflows) with actionlint, pinned, run through the Go module
// proxy as `go run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12`.
package workflows_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

const actionlint = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

// lint runs actionlint on the files, in the module root, and returns its
// exit error and output.
func lint(t *testing.T, files ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", actionlint, "-no-color"}, files...)...)
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	return cmd.CombinedOutput()
}

// TestWorkflowsLint: ci.yml and release.yml pass actionlint, and actionlint
// does reject a workflow with a mistake (so a pass means something).
func TestWorkflowsLint(t *testing.T) {
	if out, err := exec.Command("go", "mod", "download", "github.com/rhysd/actionlint@v1.7.12").CombinedOutput(); err != nil {
		reach.Missing(t, "actionlint cannot be fetched from the Go module proxy: "+string(out))
	}
	if out, err := lint(t, ".github/workflows/ci.yml", ".github/workflows/release.yml"); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.yml")
	harness.WriteFile(t, bad, "on: push\njobs:\n  x:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ matrix.nope }}\n")
	if out, err := lint(t, bad); err == nil {
		t.Errorf("actionlint passed a workflow reading an undefined matrix property\n%s", out)
	}
}
