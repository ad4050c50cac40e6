package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// A path that climbs with ".." after a symlink is where the kernel takes
// it: ".." of the symlink's target, not of the symlink's directory. A task
// writing outside through a symlink it made beneath its root is recorded.
func TestDotDotAfterASymlinkIsRecorded(t *testing.T) {
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
			for _, d := range []string{filepath.Join(proj, "dist"), filepath.Join(outside, "sub")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := `ln -s ` + filepath.Join(outside, "sub") + ` dist/l && (echo x > dist/l/../written) 2>/dev/null; true`
			out, code, vs := confined(t, mode, true, proj, cmd, "dist/**")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			want := filepath.Join(outside, "written")
			_, err := os.Stat(want)
			if written := err == nil; written != (mode == wire.SandboxReport) {
				t.Fatalf("%s written: %v", want, written)
			}
			if len(vs) != 1 || vs[0].Path != want || vs[0].Op != opCreate || vs[0].Denied != (mode == wire.SandboxEnforce) {
				t.Fatalf("violations = %+v, want one create of %s", vs, want)
			}
		})
	}
}
