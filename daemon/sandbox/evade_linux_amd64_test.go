package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// creat(2) follows a symlink as open with O_CREAT|O_TRUNC does: a task
// truncating an outside file, or creating one, through a symlink beneath
// its root is recorded.
func TestCreatThroughASymlinkIsRecorded(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	mkdirs(t, filepath.Join(proj, "dist"))
	victim, made := filepath.Join(root, "victim"), filepath.Join(root, "made")
	if err := os.WriteFile(victim, []byte("v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 85 is creat on amd64.
	cmd := `ln -s ../../victim dist/l && ln -s ../../made dist/d && perl -e '$l = "dist/l"; $d = "dist/d"; syscall(85, $l, 0644) >= 0 && syscall(85, $d, 0644) >= 0 or die "creat: $!"'`
	out, code, vs := confined(t, wire.SandboxReport, true, proj, cmd, "dist/**")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if len(vs) != 2 || vs[0].Op != opWrite || vs[0].Path != victim || vs[1].Op != opCreate || vs[1].Path != made {
		t.Fatalf("violations = %+v, want the write of %s and the create of %s", vs, victim, made)
	}
}
