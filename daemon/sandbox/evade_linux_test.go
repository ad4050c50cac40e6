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

// A rename out of the roots whose source is missing when the observer
// looks is still recorded: another process of the task may create the
// source beneath the roots (unrecorded, it is allowed) before the stopped
// rename goes on, and then moves it outside. Only a missing source outside
// the policy, which nothing of the task creates unrecorded, records
// nothing.
func TestRenameOfAMissingSourceBeneathTheRootsIsRecorded(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	if err := os.MkdirAll(filepath.Join(proj, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := `perl -e 'rename("dist/none", "../moved"); rename("../none", "../moved2")'`
	out, code, vs := confined(t, wire.SandboxReport, true, proj, cmd, "dist/**")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	want := filepath.Join(root, "moved")
	if len(vs) != 1 || vs[0].Path != want || vs[0].Op != opRename {
		t.Fatalf("violations = %+v, want one rename to %s", vs, want)
	}
}

// Opening a dangling symlink with O_CREAT creates its target: a task that
// points a symlink beneath its root (or a chain of them) at a missing file
// outside and writes through it is recorded creating that file.
func TestCreatingThroughADanglingSymlinkIsRecorded(t *testing.T) {
	root := t.TempDir()
	proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(proj, "dist"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := `ln -s ../../outside/a dist/a && echo x > dist/a && ln -s b dist/chain && ln -s ` + filepath.Join(outside, "b") + ` dist/b && echo x > dist/chain`
	out, code, vs := confined(t, wire.SandboxReport, true, proj, cmd, "dist/**")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Op+" "+v.Path)
	}
	want := []string{opCreate + " " + filepath.Join(outside, "a"), opCreate + " " + filepath.Join(outside, "b")}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("violations = %q, want %q", got, want)
	}
}
