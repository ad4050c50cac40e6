package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// A call outside the policy that the kernel refuses before Landlock is
// asked (creating what exists, removing or moving what does not) writes
// nothing and is no violation, in either mode; the creation beside them
// still is.
func TestCallsThatChangeNothingAreNoViolations(t *testing.T) {
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			proj := filepath.Join(root, "proj")
			mkdirs(t, proj, filepath.Join(root, "shared"))
			if err := os.WriteFile(filepath.Join(root, "kept"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := `mkdir -p ../shared; mkdir ../shared; rm -f ../nothing; rmdir ../nothing 2>/dev/null; ` +
				`mv ../nothing ../moved 2>/dev/null; ln -s x ../kept 2>/dev/null; (set -C; echo > ../kept) 2>/dev/null; mkdir ../made; true`
			out, code, vs := confined(t, mode, true, proj, cmd, "dist/**")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			want := filepath.Join(root, "made")
			if len(vs) != 1 || vs[0].Op != opMkdir || vs[0].Path != want || vs[0].Denied != (mode == wire.SandboxEnforce) {
				t.Fatalf("violations = %+v, want only the mkdir of %s", vs, want)
			}
			if b, err := os.ReadFile(filepath.Join(root, "kept")); err != nil || string(b) != "x" {
				t.Fatalf("the existing file changed: %q %v", b, err)
			}
		})
	}
}
