//go:build !windows

package live_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonFollowsNoPlantedSymlink: whoever could write .vx/daemon
// before a daemon started (it was left open to others) may have planted
// symlinks where vxd and vx write: vxd.log, vxd.out, vxd.lock. Neither
// writes through them: no file elsewhere is appended to or created, as
// the user running vxd (root, say).
func TestDaemonFollowsNoPlantedSymlink(t *testing.T) {
	root := demo(t)
	dir := filepath.Join(root, ".vx", "daemon")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("victim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"vxd.log": victim, "vxd.out": filepath.Join(outside, "made.out"), "vxd.lock": filepath.Join(outside, "made.lock")}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// Each link in turn: vxd start refuses, naming it; then it goes.
	for _, name := range []string{"vxd.out", "vxd.log", "vxd.lock"} {
		r := run(t, root, vxdBin, "start")
		if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, name) {
			t.Errorf("vxd start with %s a planted symlink: want a refusal naming it\n%s", name, r)
		}
		stopDaemon(t, root)
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A .vx/daemon of another user (its owner may open it again at any
	// time): vxd serves from it never (chown needs root, as CI runs).
	if os.Geteuid() == 0 {
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if r := run(t, root, vxdBin, "start"); r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "belongs to uid 65534") {
			t.Errorf("vxd start with .vx/daemon another user's: want a refusal saying so\n%s", r)
		}
		stopDaemon(t, root)
		_ = os.Chown(dir, 0, 0)
	}
	// An events directory planted as a link beside a discovery file: a
	// run outside the daemon writes no events through it.
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, "events")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vxd.json"), []byte(`{"port":1,"token":"x","pid":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	vxRun(t, root, "build", "--force")
	if ents, _ := os.ReadDir(elsewhere); len(ents) > 0 {
		t.Errorf("vx run wrote %s through the planted events link", ents[0].Name())
	}
	if b, _ := os.ReadFile(victim); string(b) != "victim\n" {
		t.Errorf("vxd wrote through the planted vxd.log symlink into %s:\n%s", victim, b)
	}
	for _, made := range []string{"made.out", "made.lock"} {
		if _, err := os.Lstat(filepath.Join(outside, made)); err == nil {
			t.Errorf("a planted symlink made vx or vxd create %s", filepath.Join(outside, made))
		}
	}
}
