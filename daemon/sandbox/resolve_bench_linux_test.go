package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// What preparing a task's policy costs: WriteRoots and Resolve for a
// project's dist/** and a temp dir, as the runner does once per task.
func BenchmarkPolicy(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "packages", "pkg-0001")
	tmp := filepath.Join(root, ".vx", "tmp", "1-0")
	for _, d := range []string{dir, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		dirs, files := WriteRoots(dir, []string{"dist/**"}, tmp)
		p := &Policy{Landlock: true, WriteDirs: dirs, WriteFiles: files}
		p.Resolve()
	}
}
