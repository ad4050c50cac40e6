// Package crossvet_test type-checks vx for the release platforms this
// machine does not run: go vet ./... with GOOS and GOARCH set and cgo off,
// so that Linux-only code outside _linux.go files fails here, not on a
// user's Mac. Without cgo go-sqlite3 is a stub: daemon/history keeps its
// types behind the cgo build tag (sqlite_cgo.go), and everything else is
// checked. `make vet-cross` runs this test alone.
package crossvet_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// Platforms are the release platforms other than linux/amd64, which every
// other test builds for.
var Platforms = []struct{ GOOS, GOARCH string }{
	{"darwin", "arm64"},
	{"darwin", "amd64"},
	{"linux", "arm64"},
}

func TestVetCross(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("go is not on PATH: %v", err)
		}
		t.Skipf("go is not on PATH (%v): the cross-platform vet needs it", err)
	}
	for _, p := range Platforms {
		t.Run(p.GOOS+"/"+p.GOARCH, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(goBin, "vet", "./...")
			cmd.Dir = harness.ModuleRoot()
			cmd.Env = append(os.Environ(), "GOOS="+p.GOOS, "GOARCH="+p.GOARCH, "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOOS=%s GOARCH=%s CGO_ENABLED=0 go vet ./...: %v\n%s", p.GOOS, p.GOARCH, err, out)
			}
		})
	}
}
