//go:build unix

package runner

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// stampFile's mode is the one os.Lstat gives, for every kind of file, so
// stamps written before it still match.
func TestStampModeIsOsLstat(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o640))
	must(os.Chmod(filepath.Join(dir, "f"), 0o640|os.ModeSetuid|os.ModeSetgid))
	must(os.Mkdir(filepath.Join(dir, "d"), 0o755))
	must(os.Chmod(filepath.Join(dir, "d"), 0o755|os.ModeSticky))
	must(os.Symlink("f", filepath.Join(dir, "l")))
	must(syscall.Mkfifo(filepath.Join(dir, "p"), 0o600))
	for _, name := range []string{"f", "d", "l", "p"} {
		fi, err := os.Lstat(filepath.Join(dir, name))
		must(err)
		got, ok := stampFile(dir, name)
		if !ok {
			t.Fatalf("%s: no stamp", name)
		}
		if os.FileMode(got.Mode) != fi.Mode() || got.Size != fi.Size() || got.Mtime != fi.ModTime().UnixNano() {
			t.Errorf("%s: stamp mode %v size %d mtime %d, os.Lstat %v %d %d", name, os.FileMode(got.Mode), got.Size, got.Mtime, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		}
	}
	if _, ok := stampFile(dir, "missing"); ok {
		t.Error("a missing output was stamped")
	}
}
