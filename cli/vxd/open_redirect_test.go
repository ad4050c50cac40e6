package vxd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/layout"
)

// TestOpenRedirectStaysOutOfTheWorkspace: the redirect file vxd open hands
// the browser carries the approval key, which vx keeps out of the
// workspace (an agent whose file tools cover it must not find it): the
// file is written beside the key, in a directory of this user's only
// (0700), as a 0600 file, and a symlink planted where it goes is replaced,
// never followed.
func TestOpenRedirectStaysOutOfTheWorkspace(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("HOME", config)
	const link = "http://127.0.0.1:1234/approve/page?key=SECRETKEY"
	keyDir := filepath.Dir(layout.ApproveKey(root))
	if err := os.MkdirAll(keyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	want := strings.TrimSuffix(layout.ApproveKey(root), ".key") + ".open.html"
	if err := os.Symlink(victim, want); err != nil {
		t.Fatal(err)
	}
	page, err := writeRedirect(root, link)
	if err != nil {
		t.Fatal(err)
	}
	if page != want {
		t.Fatalf("redirect written to %s, want %s (beside the approval key, outside the workspace)", page, want)
	}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if b, rerr := os.ReadFile(p); rerr == nil && strings.Contains(string(b), "SECRETKEY") {
			t.Errorf("%s in the workspace holds the approval key", p)
		}
		return nil
	})
	fi, err := os.Lstat(page)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("redirect file: %v, %v; want a regular 0600 file", fi, err)
	}
	if di, err := os.Stat(keyDir); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("redirect's directory: %v, %v; want 0700", di, err)
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Fatalf("the planted symlink was followed: %v", err)
	}
	if b, _ := os.ReadFile(page); !strings.Contains(string(b), "url=http://127.0.0.1:1234/approve/page?key=SECRETKEY") {
		t.Fatalf("redirect file: %s", b)
	}
}
