package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// /dev/fd/N and a symlink to /proc/self/fd/N name the caller's descriptor
// N, not vx's: a task writing beneath its own descriptor of an outside
// directory through them is recorded, even when vx's descriptor of that
// number is a directory beneath the roots.
func TestProcSelfInAPathIsTheCallers(t *testing.T) {
	root := t.TempDir()
	proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
	dist := filepath.Join(proj, "dist")
	mkdirs(t, dist, outside)
	// vx's descriptor K is dist; the task's K is outside.
	f, err := os.Open(dist)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	k := strconv.Itoa(int(f.Fd()))
	cmd := `python3 -c '
import os
os.dup2(os.open("../outside", os.O_RDONLY), ` + k + `)
os.symlink("/proc/self/fd/` + k + `", "dist/l")
open("/dev/fd/` + k + `/a", "w").close()
open("dist/l/b", "w").close()
'`
	out, code, vs := confined(t, wire.SandboxReport, true, proj, cmd, "dist/**")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	a, b := filepath.Join(outside, "a"), filepath.Join(outside, "b")
	for _, p := range []string{a, b} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("report mode did not write %s: %v", p, err)
		}
	}
	if len(vs) != 2 || vs[0].Path != a || vs[0].Op != opCreate || vs[1].Path != b || vs[1].Op != opCreate {
		t.Fatalf("violations = %+v, want the creates of %s and %s", vs, a, b)
	}
}
