package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/layout"
)

// The saved hashes come back as saved: those proven and not read again,
// those read this run (in place of a proven hash of the same path), none
// the journal reported changed; any other path is not proven.
func TestSavedHashesLoadAsSaved(t *testing.T) {
	root := t.TempDir()
	path := layout.JournalState(root)
	var prior provenSet
	for i := 0; i < 3000; i += 2 {
		prior = append(prior, provenHash{fmt.Sprintf("packages/p%04d/index.js", i), fmt.Sprintf("old%d", i)})
	}
	prior.drop("packages/p0010/index.js")
	read := map[string]string{}
	for i := 1; i < 3000; i += 2 {
		read[filepath.Join(root, "packages", fmt.Sprintf("p%04d", i), "index.js")] = fmt.Sprintf("new%d", i)
	}
	read[filepath.Join(root, "packages/p0020/index.js")] = "again"
	read[filepath.Join(filepath.Dir(root), "outside.js")] = "outside"
	st := &journalState{epoch: "e1", seq: 3, hashes: prior.merged(root, read, maxJournalEntries)}
	if err := saveJournal(path, root, st); err != nil {
		t.Fatal(err)
	}
	got := loadJournal(path, root)
	if got == nil {
		t.Fatal("the saved state did not load")
	}
	for i := 0; i < 3000; i++ {
		rel := fmt.Sprintf("packages/p%04d/index.js", i)
		want, wantOK := fmt.Sprintf("old%d", i), true
		switch {
		case i == 10:
			want, wantOK = "", false
		case i == 20:
			want = "again"
		case i%2 == 1:
			want = fmt.Sprintf("new%d", i)
		}
		if h, ok := got.hashes.get(rel); h != want || ok != wantOK {
			t.Fatalf("%s: %q %v; want %q %v", rel, h, ok, want, wantOK)
		}
	}
	for _, rel := range []string{"", "packages", "packages/p3000/index.js", "outside.js", "../outside.js", "packages/p0001/index.jsx"} {
		if h, ok := got.hashes.get(rel); ok {
			t.Errorf("%q proven as %q", rel, h)
		}
	}
	if len(got.hashes) != 2999 {
		t.Errorf("%d hashes saved; want 2999", len(got.hashes))
	}
}

// A state whose hashes are not in path order (written by hand or torn
// in a way the lengths do not show) is not loaded: the run stats every
// file rather than miss a path in it.
func TestUnsortedStateNotLoaded(t *testing.T) {
	root := t.TempDir()
	path := layout.JournalState(root)
	st := &journalState{epoch: "e1", seq: 3, hashes: provenSet{{"b", "1"}, {"a", "2"}}}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := saveJournal(path, root, st); err != nil {
		t.Fatal(err)
	}
	if loadJournal(path, root) != nil {
		t.Error("an unsorted state loaded")
	}
	st.hashes = provenSet{{"a", "1"}, {"a", "2"}}
	if err := saveJournal(path, root, st); err != nil {
		t.Fatal(err)
	}
	if loadJournal(path, root) != nil {
		t.Error("a state with a path twice loaded")
	}
}

// A save is bounded: past the limit the rest is left out, in order.
func TestSavedHashesBounded(t *testing.T) {
	root := t.TempDir()
	prior := provenSet{{"a", "1"}, {"c", "3"}}
	got := prior.merged(root, map[string]string{filepath.Join(root, "b"): "2", filepath.Join(root, "d"): "4"}, 3)
	if len(got) != 3 || got[0].rel != "a" || got[1].rel != "b" || got[2].rel != "c" || !got.sorted() {
		t.Errorf("bounded merge: %v", got)
	}
}
