package hashing_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
)

// Records finds each listed file's stat cache record, of its root only,
// and HashRecord answers as HashFile does: the recorded hash for a file as
// recorded, the new content's for one edited in place with its mtime put
// back or replaced, not-exist for one removed, and a wrong or missing
// record falls back to the lookup by path.
func TestRecordsAndHashRecordAreHashFile(t *testing.T) {
	dir := t.TempDir()
	root, other := filepath.Join(dir, "ws"), filepath.Join(dir, "ws-copy")
	old := time.Now().Add(-time.Hour)
	files := []string{"a-b.txt", "a/b.txt", "a/c.txt", "z.txt"} // sorted as a listing is
	for _, r := range []string{root, other} {
		for _, f := range files {
			write(t, filepath.Join(r, f), "body of "+f, old)
		}
	}
	cache := filepath.Join(dir, "statcache")
	h := hashing.NewHasher(cache)
	for _, r := range []string{other, root} {
		for _, f := range files {
			if _, err := h.HashFile(filepath.Join(r, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	rewriteInPlace(t, filepath.Join(root, "a/b.txt"), "BODY OF A/B.TXT")
	write(t, filepath.Join(root, "a/c.txt"), "replaced", old)
	if err := os.Remove(filepath.Join(root, "z.txt")); err != nil {
		t.Fatal(err)
	}

	next := hashing.NewHasher(cache)
	listed := append([]string{"a-a.txt"}, files...) // one the cache never saw
	recs := next.Records(root, listed)
	if len(recs) != len(listed) || recs[0] != -1 {
		t.Fatalf("records %v: want one per listed file, -1 for a-a.txt", recs)
	}
	for i, f := range listed[1:] {
		if recs[i+1] < 0 {
			t.Errorf("%s has no record", f)
		}
	}
	plain := hashing.NewHasher(cache)
	for i, f := range listed {
		abs := filepath.Join(root, f)
		want, wantErr := plain.HashFile(abs)
		for _, rec := range []int32{recs[i], -1, recs[len(recs)-1-i]} { // its own, none, another's
			got, err := next.HashRecord(abs, rec)
			if got != want || (err == nil) != (wantErr == nil) {
				t.Errorf("%s with record %d: %q %v, HashFile %q %v", f, rec, got, err, want, wantErr)
			}
		}
	}
	if got, err := next.HashRecord(filepath.Join(root, "a/b.txt"), recs[2]); err != nil || got != hashing.SumString("BODY OF A/B.TXT") {
		t.Errorf("a/b.txt edited in place: %q %v", got, err)
	}
	if _, err := next.HashRecord(filepath.Join(root, "z.txt"), recs[4]); !os.IsNotExist(err) {
		t.Errorf("removed z.txt: %v, want not-exist", err)
	}
}

// A run whose inputs all go by their records leaves the stat cache as it
// was (nothing to save), and a later lookup by path on the same Hasher
// still finds every loaded record.
func TestRecordsOnlyRunKeepsTheCache(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	files := []string{"a.txt", "b/c.txt"}
	for _, f := range files {
		write(t, filepath.Join(dir, "ws", f), "body of "+f, old)
	}
	cache := filepath.Join(dir, "statcache")
	h := hashing.NewHasher(cache)
	want := map[string]string{}
	for _, f := range files {
		sum, err := h.HashFile(filepath.Join(dir, "ws", f))
		if err != nil {
			t.Fatal(err)
		}
		want[f] = sum
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	next := hashing.NewHasher(cache)
	recs := next.Records(filepath.Join(dir, "ws"), files)
	for i, f := range files {
		if got, err := next.HashRecord(filepath.Join(dir, "ws", f), recs[i]); err != nil || got != want[f] {
			t.Errorf("%s by record: %q %v, want %q", f, got, err, want[f])
		}
	}
	if err := next.Save(); err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadFile(cache); err != nil || string(after) != string(before) {
		t.Errorf("the stat cache changed after a run of records only (%v)", err)
	}
	for _, f := range files {
		if got, err := next.HashFile(filepath.Join(dir, "ws", f)); err != nil || got != want[f] {
			t.Errorf("%s by path after: %q %v, want %q", f, got, err, want[f])
		}
	}
	// And an edit seen by path is saved.
	rewriteInPlace(t, filepath.Join(dir, "ws", "a.txt"), "BODY OF A.TXT")
	if _, err := next.HashFile(filepath.Join(dir, "ws", "a.txt")); err != nil {
		t.Fatal(err)
	}
	if err := next.Save(); err != nil {
		t.Fatal(err)
	}
	again := hashing.NewHasher(cache)
	if got, err := again.HashRecord(filepath.Join(dir, "ws", "b/c.txt"), again.Records(filepath.Join(dir, "ws"), files)[1]); err != nil || got != want["b/c.txt"] {
		t.Errorf("b/c.txt after the save: %q %v (the saved cache lost a loaded record)", got, err)
	}
}
