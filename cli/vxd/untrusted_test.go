package vxd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/layout"
)

// TestStatusSaysWhyDiscoveryIsDistrusted: a discovery file in a state
// directory other users may write (or itself open to them) is never
// trusted, and vxd status says why rather than only "not running".
func TestStatusSaysWhyDiscoveryIsDistrusted(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{"vx.workspace.json": `{"projects": []}`})
	dir := layout.Daemon(root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(layout.Discovery(root))), []byte(`{"port":1,"token":"x","pid":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		mode os.FileMode
	}{{dir, 0o777}, {layout.Discovery(root), 0o644}} {
		if err := os.Chmod(tc.path, tc.mode); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runVXD("status", "--root", root)
		if code != 1 || !strings.Contains(errs, "open to other users") {
			t.Errorf("vxd status with %s at mode %v: exit %d, stderr %q; want exit 1 saying it is open to other users", tc.path, tc.mode, code, errs)
		}
		if tc.path == dir {
			_ = os.Chmod(dir, 0o700) // the next case opens the file alone
		}
	}
	if err := os.Chmod(layout.Discovery(root), 0o600); err != nil {
		t.Fatal(err)
	}
	// Another user's file (chown needs root: vx's tests run as root in CI).
	if os.Geteuid() == 0 {
		if err := os.Chown(layout.Discovery(root), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if code, _, errs := runVXD("status", "--root", root); code != 1 || !strings.Contains(errs, "belongs to uid 65534") {
			t.Errorf("vxd status with another user's discovery file: exit %d, stderr %q", code, errs)
		}
		_ = os.Chown(layout.Discovery(root), 0, 0)
	}
	// A symlink to a private file elsewhere (whoever made the link chose
	// where it points).
	elsewhere := filepath.Join(t.TempDir(), "vxd.json")
	if err := os.Rename(layout.Discovery(root), elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, layout.Discovery(root)); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runVXD("status", "--root", root); code != 1 || !strings.Contains(errs, "not trusted") || !strings.Contains(errs, "symlink") {
		t.Errorf("vxd status with the discovery file a symlink: exit %d, stderr %q", code, errs)
	}
}
