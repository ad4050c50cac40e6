package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLeftoverOwner(t *testing.T) {
	cases := []struct {
		name  string
		pid   int
		start int64
		ok    bool
	}{
		{"scratch-123-456-789", 123, 456, true},
		{"7923-0", 7923, 0, true},
		{"scratch-123", 0, 0, false},
		{"scratch-x-1-2", 0, 0, false},
		{"notes", 0, 0, false},
		{"0-1", 0, 0, false},
	}
	for _, c := range cases {
		pid, start, ok := leftoverOwner(c.name)
		if pid != c.pid || start != c.start || ok != c.ok {
			t.Errorf("leftoverOwner(%q) = %d %d %v, want %d %d %v", c.name, pid, start, ok, c.pid, c.start, c.ok)
		}
	}
	if ownerGone(os.Getpid(), 0) {
		t.Error("this process reads as gone")
	}
}

// A temp file of an atomic write that a killed process left (old) is
// removed; one a writer may still rename (fresh) is not, nor a file of
// another name.
func TestReapStaleTemps(t *testing.T) {
	vx := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for name, mtime := range map[string]time.Time{".repeat.tmp123": old, ".listing.tmp9": time.Now(), "outputs.json": old} {
		p := filepath.Join(vx, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	reapLeftovers(vx)
	for name, want := range map[string]bool{".repeat.tmp123": false, ".listing.tmp9": true, "outputs.json": true} {
		if _, err := os.Stat(filepath.Join(vx, name)); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", name, err == nil, want)
		}
	}
}
