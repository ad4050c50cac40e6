package live_test

import (
	"os"
	"path/filepath"
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
	r := run(t, root, vxdBin, "start")
	t.Logf("vxd start with planted symlinks:\n%s", r)
	stopDaemon(t, root)
	if b, _ := os.ReadFile(victim); string(b) != "victim\n" {
		t.Errorf("vxd wrote through the planted vxd.log symlink into %s:\n%s", victim, b)
	}
	for _, made := range []string{"made.out", "made.lock"} {
		if _, err := os.Lstat(filepath.Join(outside, made)); err == nil {
			t.Errorf("a planted symlink made vx or vxd create %s", filepath.Join(outside, made))
		}
	}
}
