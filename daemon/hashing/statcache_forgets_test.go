package hashing_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// writeOld writes files under dir with an mtime old enough for the stat
// cache to remember them.
func writeOld(t *testing.T, dir string, names ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// cachedPaths is every path the stat cache at path holds.
func cachedPaths(path string) []string {
	h := hashing.NewHasher(path)
	var out []string
	for i := range hashing.StatCacheRecords(h) {
		out = append(out, h.RecordPath(int32(i)))
	}
	return out
}

// TestStatCacheForgetsWhatIsNoLongerListed: the stat cache keeps the
// files of the workspace's listing and what the run hashed, and forgets a
// file removed since, and those of another root (a workspace copied or
// moved with its .vx kept the old paths: at 10,000 packages a copy's cache
// held 220,000 records, 21 MB read by every later run); a file neither
// listed nor hashed by a run is forgotten too. A Hasher never told the
// listing forgets nothing, and one with nothing to forget does not
// rewrite the cache.
func TestStatCacheForgetsWhatIsNoLongerListed(t *testing.T) {
	dir := t.TempDir()
	root, other := filepath.Join(dir, "ws"), filepath.Join(dir, "old")
	for _, d := range []string{root, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeOld(t, root, "a", "b", "unlisted")
	writeOld(t, other, "x")
	cache := filepath.Join(dir, "statcache")
	h := hashing.NewHasher(cache)
	for _, p := range []string{filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "unlisted"), filepath.Join(other, "x")} {
		if _, err := h.HashFile(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}

	// A Hasher not told the listing keeps every record.
	writeOld(t, root, "c")
	h = hashing.NewHasher(cache)
	if _, err := h.HashFile(filepath.Join(root, "c")); err != nil {
		t.Fatal(err)
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	if got := len(cachedPaths(cache)); got != 5 {
		t.Fatalf("without the listing the cache holds %d records, want all 5", got)
	}

	// b removed; the run lists a and c and hashes a, and also "unlisted"
	// (an input the listing leaves out), found in the cache.
	if err := os.Remove(filepath.Join(root, "b")); err != nil {
		t.Fatal(err)
	}
	h = hashing.NewHasher(cache)
	listed := []string{"a", "c"}
	h.ForgetUnlisted(h.Records(root, listed))
	if _, err := h.HashFile(filepath.Join(root, "unlisted")); err != nil {
		t.Fatal(err)
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "a"), filepath.Join(root, "c"), filepath.Join(root, "unlisted")}
	if got := cachedPaths(cache); !slices.Equal(got, want) {
		t.Errorf("after a run listing a and c the cache holds %q, want %q", got, want)
	}

	// The same run again: nothing to forget, nothing new hashed, so the
	// cache is not rewritten.
	st, _ := os.Stat(cache)
	h = hashing.NewHasher(cache)
	h.ForgetUnlisted(h.Records(root, listed))
	if _, err := h.HashFile(filepath.Join(root, "unlisted")); err != nil {
		t.Fatal(err)
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(cache); !os.SameFile(st, st2) {
		t.Errorf("a run with nothing to forget rewrote the stat cache")
	}

	// A run that neither lists nor hashes it forgets it.
	h = hashing.NewHasher(cache)
	h.ForgetUnlisted(h.Records(root, listed))
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	if got, want := cachedPaths(cache), want[:2]; !slices.Equal(got, want) {
		t.Errorf("after a run listing a and c alone the cache holds %q, want %q", got, want)
	}
}
