//go:build !windows

package engine_test

import (
	"os"
	"path/filepath"
	"testing"
)

// A report-mode task may remove its own temp dir and put a symlink in its
// place (both are writes to its temp dir, which it is allowed). Emptying
// the temp dir for the next task must not follow it: vx would otherwise
// delete whatever the link points to.
func TestSandboxTempDirSwappedForASymlinkIsNotFollowed(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(victim, "keep.txt")
	if err := os.WriteFile(keep, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := sandboxWorkspace(t, `{"build": {"command": "rmdir \"$TMPDIR\" && ln -s `+victim+` \"$TMPDIR\" && echo swapped", "cache": false, "sandbox": {"mode": "report"}}}`)
	rows, _, r := sbRun(t, ws, nil, 0, "build")
	if row := rows["app#build"]; row.Status != "passed" {
		t.Fatalf("app#build: %+v\n%s", row, r)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "precious\n" {
		t.Fatalf("the file behind the swapped temp dir: %q, %v", b, err)
	}
}
