package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The sandbox's cost per task: a plain sh -c against the same command
// confined (Landlock and the observer), writing one file inside its roots.
func BenchmarkTask(b *testing.B) {
	dir := b.TempDir()
	const command = "mkdir -p dist && echo x > dist/out"
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("/bin/sh", "-c", command)
			cmd.Dir = dir
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	v := Detect()
	confined := func(b *testing.B, landlock, observe bool) {
		for b.Loop() {
			dirs, files := WriteRoots(dir, []string{"dist/**"}, "")
			p := &Policy{Landlock: landlock, Observe: observe, ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
			p.Resolve()
			cmd := exec.Command("/bin/sh", "-c", command)
			cmd.Dir = dir
			s, err := Start(cmd, p)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Wait(); err != nil {
				b.Fatal(err)
			}
			if vs := s.Finish(); len(vs) != 0 {
				b.Fatal(vs)
			}
		}
	}
	b.Run("confined", func(b *testing.B) { confined(b, v.Landlock, v.Observer != "") })
	b.Run("landlock", func(b *testing.B) { confined(b, v.Landlock, false) })
	b.Run("observer", func(b *testing.B) { confined(b, false, v.Observer != "") })
	_ = os.RemoveAll(filepath.Join(dir, "dist"))
}
