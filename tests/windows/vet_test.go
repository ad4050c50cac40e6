package windows_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// vetClean are the packages that type-check for windows/amd64 with cgo
// off, tests included: every package but the Linux test harnesses under
// tests/ and the benchmark scripts (issue 29). A package here must stay
// clean.
var vetClean = []string{
	"./cli/...", "./client/...", "./cmd/...", "./daemon/...", "./httpapi/...", "./internal/...",
	"./mcpserver/...", "./opkit/...", "./pagekit/...", "./platform/...", "./protocol/...",
}

// TestVetWindows: GOOS=windows CGO_ENABLED=0 go vet stays clean on the
// packages that are (no wine needed).
func TestVetWindows(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("go is not on PATH: %v", err)
		}
		t.Skipf("go is not on PATH (%v)", err)
	}
	cmd := exec.Command("go", append([]string{"vet"}, vetClean...)...)
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("GOOS=windows CGO_ENABLED=0 go vet %s: %v\n%s", strings.Join(vetClean, " "), err, out)
	}
}
