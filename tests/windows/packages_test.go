//go:build !windows

package windows_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// windowsPackages are the packages whose own tests TestWindowsPackages
// runs as windows/amd64 binaries under wine; cgo says the package needs
// SQLite (go-sqlite3, compiled with the mingw compiler and linked static).
// The engine's packages are TestEnginePackagesUnderWine's.
var windowsPackages = []struct {
	pkg string
	cgo bool
}{
	{"internal/flock", false},
	{"internal/privfile", false},
	{"protocol/jsonrpc", false},
	{"protocol/mcp", false},
	{"protocol/proof", false},
	{"protocol/version", false},
	{"protocol/wire", false},
	{"internal/connlimit", false},
	{"internal/testtree", false},
	{"internal/anypath", false},
	{"daemon/docsearch", false},
	{"daemon/failures", false},
	{"daemon/jsonc", false},
	{"daemon/records", false},
	{"daemon/runevents", false},
	{"daemon/sandbox", false},
	{"daemon/secret", false},
	{"httpapi", false},
	{"mcpserver", false},
	{"client/shim", false},
}

// cannotRunUnderWine names, per package, the tests that cannot pass under
// wine on this machine, with why. Only these are skipped.
var cannotRunUnderWine = map[string]map[string]string{
	"internal/privfile": {
		// Measured: SetNamedSecurityInfo answers success, and the list
		// read back is still the one wine makes from the Unix mode bits
		// (SYSTEM and the user full control, Everyone read). The hosted
		// windows-latest job runs it.
		"TestDaemonDirIsTheUsersAlone": "wine 8 keeps no access list a program sets on a file",
	},
}

// TestWindowsPackages: the packages' own tests pass as windows/amd64
// binaries under wine (without -race: it needs cgo and a Windows C
// toolchain the race runtime supports, which is the hosted runner's job).
func TestWindowsPackages(t *testing.T) {
	needWine(t)
	for _, p := range windowsPackages {
		t.Run(strings.ReplaceAll(p.pkg, "/", "_"), func(t *testing.T) {
			exe := filepath.Join(suite.dir, strings.ReplaceAll(p.pkg, "/", "_")+".test.exe")
			args := []string{"test", "-c", "-o", exe, "-overlay", suite.overlay}
			if p.cgo {
				args = append(args, "-tags", "sqlite_omit_load_extension", "-ldflags", "-extldflags=-static")
			}
			if out, err := goWindows(p.cgo, append(args, "./"+p.pkg)...).CombinedOutput(); err != nil {
				t.Fatalf("cross-compiling the tests of %s: %v\n%s", p.pkg, err, out)
			}
			run := []string{"-test.count=1", "-test.timeout=8m", "-test.v"}
			var skip []string
			for name, why := range cannotRunUnderWine[p.pkg] {
				t.Logf("skipping %s.%s: wine cannot show it: %s", p.pkg, name, why)
				skip = append(skip, "^"+name+"$")
			}
			if len(skip) > 0 {
				run = append(run, "-test.skip="+strings.Join(skip, "|"))
			}
			out, err := wine(t, 9*time.Minute, filepath.Join(harness.ModuleRoot(), p.pkg), exe, run...)
			if err != nil || !strings.Contains(string(out), "\nPASS") {
				t.Fatalf("the windows tests of %s under wine: %v\n%s", p.pkg, err, tail(out, 6000))
			}
			t.Logf("%s under wine:\n%s", p.pkg, tail(out, 2000))
		})
	}
}
