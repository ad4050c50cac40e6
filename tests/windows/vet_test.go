package windows_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// vetClean are the packages that type-check for windows/amd64 with cgo
// off, tests included. It is a ratchet while the rest is ported (issue
// 29): a package here must stay clean; add one when it becomes clean.
var vetClean = []string{
	"./client", "./client/shim",
	"./daemon/cache", "./daemon/docsearch", "./daemon/failures", "./daemon/history", "./httpapi",
	"./daemon/jsonc", "./mcpserver", "./pagekit", "./daemon/records", "./daemon/runevents",
	"./daemon/sandbox", "./daemon/secret",
	"./internal/...",
	"./platform/dashboard", "./platform/ingest", "./platform/store", "./platform/tokens",
	"./protocol/...",
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
