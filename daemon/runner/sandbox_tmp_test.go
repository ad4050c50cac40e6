package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// Emptying a task's temp dir removes what is in it, and nothing through a
// symlink put in its place.
func TestEmptyDirNeverFollowsASymlink(t *testing.T) {
	base := t.TempDir()
	tmp, victim := filepath.Join(base, "tmp"), filepath.Join(base, "victim")
	for _, d := range []string{filepath.Join(tmp, "sub"), victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(tmp, "a"), filepath.Join(tmp, "sub", "b"), filepath.Join(victim, "keep")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(tmp, "out")); err != nil {
		t.Fatal(err)
	}
	if !emptyDir(tmp) {
		t.Fatal("emptyDir refused a real directory")
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("left in the temp dir: %v", entries)
	}
	if !emptyDir(tmp) {
		t.Fatal("emptyDir refused an empty directory")
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Fatalf("a symlink inside the temp dir was followed: %v", err)
	}
	// The temp dir itself replaced by a symlink.
	if err := os.Remove(tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, tmp); err != nil {
		t.Fatal(err)
	}
	if emptyDir(tmp) {
		t.Fatal("emptyDir emptied through a symlink")
	}
	if _, err := os.Stat(filepath.Join(victim, "keep")); err != nil {
		t.Fatalf("the symlinked temp dir was followed: %v", err)
	}
	// Or by an empty symlinked directory, or a file: neither is reused.
	empty := filepath.Join(base, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(tmp)
	if err := os.Symlink(empty, tmp); err != nil {
		t.Fatal(err)
	}
	if emptyDir(tmp) {
		t.Fatal("emptyDir took a symlink to an empty directory for its own")
	}
	os.Remove(tmp)
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if emptyDir(tmp) {
		t.Fatal("emptyDir took a file for a directory")
	}
}
