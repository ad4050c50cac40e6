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
			mkdirs(t, filepath.Join(proj, "dist"), filepath.Join(outside, "sub"))
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
	mkdirs(t, filepath.Join(proj, "dist"))
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
// outside and writes through it is recorded creating that file; with
// O_EXCL too the call fails and is none.
func TestCreatingThroughADanglingSymlinkIsRecorded(t *testing.T) {
	root := t.TempDir()
	proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
	mkdirs(t, filepath.Join(proj, "dist"), outside)
	// O_CREAT|O_EXCL follows no symlink: it fails (EEXIST), no violation.
	cmd := `ln -s ../../outside/a dist/a && ` +
		`perl -e 'use Fcntl; sysopen(F, "dist/a", O_WRONLY|O_CREAT|O_EXCL) and die' && echo x > dist/a && ` +
		`ln -s b dist/chain && ln -s ` + filepath.Join(outside, "b") + ` dist/b && echo x > dist/chain`
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

// A hard link beneath the roots to a file outside makes that file
// writable under an inside name (Landlock refuses it: EXDEV); the task
// linking it is recorded, in report mode before it writes through the
// link, in enforce mode as denied.
func TestLinkingAFileFromOutsideIsRecorded(t *testing.T) {
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			proj := filepath.Join(root, "proj")
			mkdirs(t, filepath.Join(proj, "dist"))
			victim, followed := filepath.Join(root, "victim"), filepath.Join(root, "followed")
			for _, f := range []string{victim, followed} {
				if err := os.WriteFile(f, []byte("v\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// The symlink itself linked is no violation; what it points to
			// linked (ln -L: AT_SYMLINK_FOLLOW) is.
			cmd := `ln ../victim dist/v 2>/dev/null && echo changed > dist/v; ` +
				`ln -s ../../followed dist/s && ln -P dist/s dist/plain && (ln -L dist/s dist/f 2>/dev/null); true`
			out, code, vs := confined(t, mode, true, proj, cmd, "dist/**")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			if b, _ := os.ReadFile(victim); (string(b) == "v\n") != (mode == wire.SandboxEnforce) {
				t.Fatalf("victim = %q", b)
			}
			if len(vs) != 2 || vs[0].Op != opLink || vs[0].Path != victim || vs[1].Op != opLink || vs[1].Path != followed ||
				vs[0].Denied != (mode == wire.SandboxEnforce) || vs[1].Denied != vs[0].Denied {
				t.Fatalf("violations = %+v, want links of %s and %s", vs, victim, followed)
			}
		})
	}
}

// A root beneath another root can be replaced by the task (a rename in a
// directory it may write): a symlink put in its place leads outside, and
// a write through it is recorded.
func TestANestedRootReplacedByASymlinkIsRecorded(t *testing.T) {
	root := t.TempDir()
	proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
	mkdirs(t, filepath.Join(proj, "dist"), outside)
	cmd := `mv dist old && ln -s ../outside dist && echo x > dist/f; rm dist; mv old dist`
	out, code, vs := confined(t, wire.SandboxReport, true, proj, cmd, "dist/**", "*.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	want := filepath.Join(outside, "f")
	if len(vs) != 1 || vs[0].Op != opCreate || vs[0].Path != want {
		t.Fatalf("violations = %+v, want the create of %s", vs, want)
	}
}
