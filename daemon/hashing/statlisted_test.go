package hashing_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// StatListed (a load's plugins stat'ing their matched files) answers each
// file's lstat and marks only the files stat'ed as the cache recorded them:
// a file rewritten in place to the same size with its mtime put back, one
// replaced and one the cache never saw are hashed from their contents
// afterwards, a missing one is not ok, and the early stat that follows
// does not undo a mark.
func TestStatListedMarksOnlyUnchangedFiles(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "ws")
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		write(t, filepath.Join(root, f), "body of "+f, old)
	}
	cache := filepath.Join(dir, "statcache")
	h := hashing.NewHasher(cache)
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := h.HashFile(filepath.Join(root, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, filepath.Join(root, "b.txt"), "BODY OF b.txt")
	if err := os.Chtimes(filepath.Join(root, "b.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "c.txt"), "BODY OF c.txt", old)
	write(t, filepath.Join(root, "d.txt"), "body of d.txt", old)

	next := hashing.NewHasher(cache)
	files := []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt"}
	stats, ok := next.StatListed(root, files)
	if len(stats) != len(files) || !ok[0] || !ok[1] || !ok[2] || !ok[3] || ok[4] {
		t.Fatalf("StatListed ok = %v", ok)
	}
	if stats[3].Size != int64(len("body of d.txt")) {
		t.Errorf("d's stat: %+v", stats[3])
	}
	next.Prestat(root)
	for _, f := range files[:4] {
		body, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := next.HashFile(filepath.Join(root, f)); err != nil || got != hashing.SumString(string(body)) {
			t.Errorf("%s: %q %v, want the hash of %q", f, got, err, body)
		}
	}
}
