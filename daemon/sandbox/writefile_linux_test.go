package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A file root (as /dev/null is to every task) may be written, not
// removed, renamed or replaced: those change its directory, which is no
// root. A task removing one and putting a symlink to an outside file in
// its place, then writing through it, is recorded.
func TestAFileRootReplacedBySymlinkIsRecorded(t *testing.T) {
	v := Detect()
	if !v.Landlock || v.Observer == "" {
		t.Fatalf("this host cannot sandbox (%s)", v.Reason)
	}
	root := t.TempDir()
	file, victim := filepath.Join(root, "allowed"), filepath.Join(root, "victim")
	for _, f := range []string{file, victim} {
		if err := os.WriteFile(f, []byte("v\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := &Policy{Observe: true, Network: true, ABI: v.ABI, WriteFiles: []string{file}}
	p.Resolve()
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", "echo ok > allowed && rm allowed && ln -s victim allowed && echo x > allowed")
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, &out, &out
	s, err := Start(cmd, p)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Wait()
	vs := s.Finish()
	if b, _ := os.ReadFile(victim); string(b) != "x\n" {
		t.Fatalf("report mode did not write through the symlink: %q %s", b, out.String())
	}
	if len(vs) < 2 || vs[0].Op != opRemove || vs[0].Path != file || vs[1].Op != opSymlink || vs[1].Path != file {
		t.Fatalf("violations = %+v, want the remove of %s and the symlink made there", vs, file)
	}
}
