package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// A task that may mount (root) could bind-mount an outside directory
// beneath its roots and write through it, every write judged inside.
// Landlock refuses any mount to a confined task, so the mount itself is
// recorded: a violation in report mode, a denial in enforce.
func TestMountIsRecorded(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mount needs CAP_SYS_ADMIN; this runs as uid", os.Geteuid())
	}
	if _, err := exec.LookPath("mount"); err != nil {
		t.Fatal("mount(8) is needed")
	}
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
			m := filepath.Join(proj, "dist", "m")
			mkdirs(t, m, outside)
			t.Cleanup(func() { exec.Command("umount", "-l", m).Run() })
			out, _, vs := confined(t, mode, true, proj, "mount --bind ../outside dist/m && echo x > dist/m/f; umount dist/m; true", "dist/**")
			_, err := os.Stat(filepath.Join(outside, "f"))
			if written := err == nil; written != (mode == wire.SandboxReport) {
				t.Fatalf("written through the mount: %v (%s)", written, out)
			}
			found := false
			for _, v := range vs { // mount(8) may also make /run/mount
				found = found || v.Op == "mount" && v.Path == m && v.Denied == (mode == wire.SandboxEnforce) && v.Process == "mount"
			}
			if !found {
				t.Fatalf("violations = %+v, want the mount on %s by mount", vs, m)
			}
		})
	}
}
