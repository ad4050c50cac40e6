package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Start resolves a policy it is given as the runner builds it (roots named
// through a symlink, the output directory not made yet): the missing root
// is created, writes and links between directories beneath it are granted,
// and what is outside is denied and recorded under the kernel's name.
func TestStartResolvesAndGrantsItsRoots(t *testing.T) {
	v := Detect()
	if !v.Landlock || v.Observer == "" {
		t.Fatalf("this host cannot sandbox (%s)", v.Reason)
	}
	real := t.TempDir()
	proj := filepath.Join(real, "proj")
	mkdirs(t, proj)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(link, "proj")
	dirs, files := WriteRoots(dir, []string{"dist/**"}, "")
	p := &Policy{Landlock: true, Observe: true, ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", `echo a > dist/a && mkdir dist/sub && ln dist/a dist/sub/a && echo b > /dev/null && (echo x > ../outside; echo "rc=$?")`)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	s, err := Start(cmd, p)
	if err != nil {
		t.Fatal(err)
	}
	werr := s.Wait()
	vs := s.Finish()
	if werr != nil {
		t.Fatalf("%v: %s", werr, out.String())
	}
	if b, err := os.ReadFile(filepath.Join(proj, "dist", "sub", "a")); err != nil || string(b) != "a\n" {
		t.Fatalf("the link across directories beneath the root: %q %v (output %q)", b, err, out.String())
	}
	if _, err := os.Stat(filepath.Join(real, "outside")); err == nil {
		t.Fatal("the write outside went through")
	}
	want := filepath.Join(real, "outside")
	if len(vs) != 1 || vs[0].Path != want || !vs[0].Denied || vs[0].Op != opCreate {
		t.Fatalf("violations = %+v, want one denied create of %s", vs, want)
	}
	if wantDir := filepath.Join(real, "proj", "dist"); len(p.WriteDirs) == 0 || p.WriteDirs[0] != wantDir {
		t.Fatalf("resolved roots = %q, want %s first", p.WriteDirs, wantDir)
	}
}

// A file root that is missing when one task starts is granted to a later
// task once it exists (only the device files' resolution is kept).
func TestAFileRootIsResolvedForEachTask(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "late.txt")
	first := &Policy{WriteFiles: []string{f}}
	first.Resolve()
	if len(first.WriteFiles) != 0 {
		t.Fatalf("a missing file root resolved to %q", first.WriteFiles)
	}
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	later := &Policy{WriteFiles: []string{f}}
	later.Resolve()
	if len(later.WriteFiles) != 1 || later.WriteFiles[0] != f {
		t.Fatalf("once created, the file root resolved to %q, want %s", later.WriteFiles, f)
	}
}
