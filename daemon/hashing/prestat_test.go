package hashing_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// The early stat answers for a file only what the stat cache recorded and
// its own stat confirmed: an edited file (even one rewritten to the same
// size with its mtime put back) and a new or removed one are as a plain
// HashFile sees them; a file marked and then removed keeps its marked
// hash for this run only, and the next run's stat sees it gone. Files of
// another root in the same cache are not stat'ed.
func TestPrestatSeesEditsAndMarksOnlyItsRoot(t *testing.T) {
	dir := t.TempDir()
	root, other := filepath.Join(dir, "ws"), filepath.Join(dir, "copy")
	old := time.Now().Add(-time.Hour)
	for _, r := range []string{root, other} {
		write(t, filepath.Join(r, "a.txt"), "alpha", old)
		write(t, filepath.Join(r, "b.txt"), "bravo", old)
		write(t, filepath.Join(r, "c.txt"), "charlie", old)
	}
	cache := filepath.Join(dir, "statcache")
	h := hashing.NewHasher(cache)
	want := map[string]string{}
	for _, r := range []string{root, other} {
		for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
			sum, err := h.HashFile(filepath.Join(r, f))
			if err != nil {
				t.Fatal(err)
			}
			want[filepath.Join(r, f)] = sum
		}
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	// Before the next run: b rewritten in place, c replaced, d added.
	rewriteInPlace(t, filepath.Join(root, "b.txt"), "BRAVO")
	write(t, filepath.Join(root, "c.txt"), "CHARLIE", old)
	write(t, filepath.Join(root, "d.txt"), "delta", old)

	next := hashing.NewHasher(cache)
	next.Prestat(root)
	next.StopPrestat()
	// After the early stat: a and other/a removed.
	for _, r := range []string{root, other} {
		if err := os.Remove(filepath.Join(r, "a.txt")); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := next.HashFile(filepath.Join(root, "a.txt")); err != nil || got != want[filepath.Join(root, "a.txt")] {
		t.Errorf("a, marked then removed: %q %v, want the marked hash for this run", got, err)
	}
	if _, err := next.HashFile(filepath.Join(other, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("other root's a: %v, want not-exist (its files are not the early stat's)", err)
	}
	for f, body := range map[string]string{"b.txt": "BRAVO", "c.txt": "CHARLIE", "d.txt": "delta"} {
		if got, err := next.HashFile(filepath.Join(root, f)); err != nil || got != hashing.SumString(body) {
			t.Errorf("%s: %q %v, want the hash of %q", f, got, err, body)
		}
	}
	if err := next.Save(); err != nil {
		t.Fatal(err)
	}

	// The run after: the removal is seen, with or without the early stat.
	for _, early := range []bool{false, true} {
		h := hashing.NewHasher(cache)
		if early {
			h.Prestat(root)
		}
		if _, err := h.HashFile(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
			t.Errorf("early=%v: removed a: %v, want not-exist", early, err)
		}
		if got, err := h.HashFile(filepath.Join(root, "b.txt")); err != nil || got != hashing.SumString("BRAVO") {
			t.Errorf("early=%v: b %q %v", early, got, err)
		}
	}
}
