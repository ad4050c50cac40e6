package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestJournalSumStandsForTheFile: where the run's journal answers a
// matched file's sum (Seen.Sum), the sum recorded with its hash stands for
// the file: the record is taken as it is, without a stat or a read (the
// file here is gone, so either would show); another sum, a link's sum or
// no answer, and the file is stat'ed and read as without a journal.
func TestJournalSumStandsForTheFile(t *testing.T) {
	root := t.TempDir()
	r := Runner{Root: root}
	old := fileRec{Path: "a/vx-ref.json", Hash: "sha-of-before", Stamp: stamp{1, 2, 3, 4, 0o100644}, Sum: "sum-before"}
	at := time.Now()
	sums := func(sum string, err error) *Seen {
		return &Seen{Sum: func(string) (string, error) { return sum, err }}
	}
	got, err := r.fileRec(sums("sum-before", nil), old.Path, &old, true, at)
	if err != nil || got != old {
		t.Fatalf("the journal's sum as recorded: %+v, %v; want the record %+v", got, err, old)
	}
	// Not what was recorded, a link's, or no answer: the file is looked
	// at, and here it is not there.
	for _, s := range []*Seen{sums("sum-after", nil), sums("link:abc", nil), sums("", errors.New("no change journal")), {}} {
		if got, err := r.fileRec(s, old.Path, &old, true, at); err == nil {
			t.Errorf("a missing file taken as %+v", got)
		}
	}
	// Written now: read, and its sum not kept beside a hash read later
	// (a file changed lately may have changed in between).
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, old.Path), []byte(`{"command":"echo"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = r.fileRec(sums("sum-after", nil), old.Path, &old, true, at)
	if err != nil || got.Hash == old.Hash || got.Hash == "" || got.Sum != "" {
		t.Fatalf("an edited file: %+v, %v; want its new hash and no sum", got, err)
	}
}

// TestLinkSumIsNotKept: a matched file that is a symbolic link has a run
// hash of its target's path, not of the content the plugins hash through
// to: its record keeps no sum, so no later load takes the record on it.
func TestLinkSumIsNotKept(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "target.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.json", filepath.Join(root, "vx-ref.json")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	r := Runner{Root: root}
	s := &Seen{Sum: func(string) (string, error) { return "link:abc", nil }}
	got, err := r.fileRec(s, "vx-ref.json", &fileRec{}, false, time.Now())
	if err != nil || got.Sum != "" || got.Hash == "" {
		t.Fatalf("a link's record: %+v, %v; want its content hash and no sum", got, err)
	}
}
