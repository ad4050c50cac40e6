package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// After chroot(2) (a root task may), an absolute name, and a symlink's
// absolute target, are taken beneath the new root: a task chrooted into an
// outside directory that holds the tree of its roots' names writes
// outside, which is recorded.
func TestChrootedTaskIsJudgedBeneathItsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chroot needs CAP_SYS_CHROOT; this runs as uid", os.Geteuid())
	}
	root := t.TempDir()
	proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
	dist := filepath.Join(proj, "dist")
	mkdirs(t, dist, filepath.Join(outside, dist))
	cmd := `python3 -c '
import os
os.symlink("` + dist + `", "dist/l")
os.chroot("../outside")
open("` + filepath.Join(dist, "a") + `", "w").close()
open("dist/l/b", "w").close()
'`
	out, code, vs := confined(t, wire.SandboxReport, true, proj, cmd, "dist/**")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	a, b := filepath.Join(outside, dist, "a"), filepath.Join(outside, dist, "b")
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("report mode did not write %s: %v", p, err)
		}
	}
	if len(vs) != 2 || vs[0].Path != a || vs[0].Op != opCreate || vs[1].Path != b || vs[1].Op != opCreate {
		t.Fatalf("violations = %+v, want the creates of %s and %s", vs, a, b)
	}
}
