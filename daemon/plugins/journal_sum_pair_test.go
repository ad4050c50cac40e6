package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSumKeptOnlyWithTheHashOfItsContent: a matched file's stamp is taken
// for the load before its content is read (Seen.statAll, the run's batch
// stat), and its sum earlier still (plugins.Begin). A file edited after
// its stamp and before its read, on a load whose sum differs from the
// stored one, must not be stored with the sum of its content before and
// the hash of its content after: a later load whose journal answers that
// sum again (the edit undone) would take the record, the hash and the
// plugin's tasks of the edited content, for a file that no longer holds it.
func TestSumKeptOnlyWithTheHashOfItsContent(t *testing.T) {
	before, edited := `{"command":"echo one"}`, `{"command":"echo two"}`
	r, rel, old, at := settledFile(t, before)
	root, abs := r.Root, filepath.Join(r.Root, rel)

	// The load: the sum of `before` (Begin), the stamp (statAll), then an
	// edit, then fileRec reads the file.
	load := &Seen{Sum: func(string) (string, error) { return "sum-of-before", nil }}
	load.look(root, []string{rel})
	load.stamp(root, rel)
	if err := os.WriteFile(abs, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := r.fileRec(load, rel, &old, true, at)
	if err != nil {
		t.Fatal(err)
	}
	// The edit undone; the next load's journal answers the sum of before.
	wantHashAfterUndo(t, r, rel, before, rec, at)
}

// TestStaleSumNotPairedWithANewRead: the sum a run's journal answers
// stands for the file as of the run's token; a file edited after that
// token but more than the racy window before the load stamps it (a slow
// load) is read for its hash with the sum of before: the pair must not
// be stored, or a load after the edit is undone takes the edited
// content's hash for it.
func TestStaleSumNotPairedWithANewRead(t *testing.T) {
	before, edited := `{"command":"echo one"}`, `{"command":"echo two"}`
	// The edit, after the token the journal proved "before" at, and
	// long enough before the stamp to look settled.
	r, rel, old, at := settledFile(t, edited)
	load := &Seen{Sum: func(string) (string, error) { return "sum-of-before", nil }}
	rec, err := r.fileRec(load, rel, &old, true, at)
	if err != nil {
		t.Fatal(err)
	}
	wantHashAfterUndo(t, r, rel, before, rec, at)
}

// settledFile writes content to vx-ref.json in a new root and waits
// until it is unchanged for longer than the racy window; it answers a
// runner of that root, the file, its stored record of an older content
// and when that record was stored.
func settledFile(t *testing.T, content string) (r Runner, rel string, old fileRec, at time.Time) {
	t.Helper()
	r, rel = Runner{Root: t.TempDir()}, "vx-ref.json"
	if err := os.WriteFile(filepath.Join(r.Root, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(racyWindow + 100*time.Millisecond)
	old = fileRec{Path: rel, Hash: "hash-of-older", Stamp: stamp{1, 2, 3, 4, 0o100644}, Sum: "sum-of-older"}
	return r, rel, old, time.Now().Add(-time.Hour)
}

// wantHashAfterUndo writes before back into rel (the edit undone) and
// checks that a load whose journal answers the sum of before, given the
// stored rec, takes the hash of before, not of the edited content.
func wantHashAfterUndo(t *testing.T, r Runner, rel, before string, rec fileRec, at time.Time) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.Root, rel), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	next := &Seen{Sum: func(string) (string, error) { return "sum-of-before", nil }}
	got, err := r.fileRec(next, rel, &rec, true, at)
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256([]byte(before))
	if got.Hash != hex.EncodeToString(want[:]) {
		t.Fatalf("the file holds %q, but its record's hash is another content's (stored %+v, taken %+v)", before, rec, got)
	}
}
