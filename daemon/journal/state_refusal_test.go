package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/daemon/records"
	"github.com/vzn/vx/protocol/version"
)

// stateFile is a state file for root as vx writes one, with magic and
// the given entries (path, hash pairs) in the order given, count n.
func stateFile(magic, root string, n int, pairs ...string) []byte {
	var w records.Writer
	w.B.WriteString(magic)
	w.Str(version.Version)
	w.Str(root)
	w.Str("e1")
	w.Uint(5)
	w.Bool(true)
	for range 4 {
		w.Uint(1)
	}
	w.Uint(uint64(n))
	for _, s := range pairs {
		w.Str(s)
	}
	return w.B.Bytes()
}

// A state file vx would not write is not read (the run stats every
// file): another form's, one naming a path twice or out of order, one
// with more or fewer entries than it counts, or cut short anywhere.
func TestAStateVXDidNotWriteIsRefused(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "journal")
	load := func(raw []byte) *journalState {
		t.Helper()
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return loadJournal(path, root)
	}
	good := stateFile(journalMagic, root, 2, "a/x", "h1", "b", "h2")
	if st := load(good); st == nil || st.epoch != "e1" || st.seq != 5 {
		t.Fatalf("a well-formed state was refused: %+v", st)
	}
	for _, c := range []struct {
		name string
		raw  []byte
	}{
		{"the form before sorted entries", stateFile("vxjrnl1\n", root, 2, "b", "h2", "a/x", "h1")},
		{"a path twice", stateFile(journalMagic, root, 2, "a/x", "h1", "a/x", "h2")},
		{"paths out of order", stateFile(journalMagic, root, 2, "b", "h2", "a/x", "h1")},
		{"more entries than counted", stateFile(journalMagic, root, 1, "a/x", "h1", "b", "h2")},
		{"fewer entries than counted", stateFile(journalMagic, root, 3, "a/x", "h1", "b", "h2")},
		{"another root's", stateFile(journalMagic, root+"x", 2, "a/x", "h1", "b", "h2")},
	} {
		if st := load(c.raw); st != nil {
			t.Errorf("%s: read as a state", c.name)
		}
	}
	for n := range len(good) {
		if st := load(good[:n]); st != nil {
			t.Fatalf("the state cut at %d of %d bytes was read", n, len(good))
		}
	}
}

// Save keeps within the bounds a load reads: a state that would pass
// maxStateFile is saved with the entries that fit, and a larger file is
// not read.
func TestASavedStateStaysWithinWhatLoadReads(t *testing.T) {
	defer func(n int) { maxStateFile = n }(maxStateFile)
	maxStateFile = 4 << 10
	root := t.TempDir()
	path := filepath.Join(root, "journal")
	var read []entry
	for i := range 1000 {
		read = append(read, entry{fmt.Sprintf("src/%04d.ts", i), fmt.Sprintf("%032x", i)})
	}
	if err := saveJournal(path, root, &journalState{epoch: "e1", seq: 1}, read); err != nil {
		t.Fatal(err)
	}
	st := loadJournal(path, root)
	if st == nil {
		t.Fatal("the state Save wrote was refused")
	}
	if n := st.proven.live(); n == 0 || n == len(read) {
		t.Fatalf("%d of %d entries saved within %d bytes", n, len(read), maxStateFile)
	}
	if h, ok := st.proven.hash(read[0].path); !ok || h != read[0].hash {
		t.Errorf("the first entry answers %q, %v", h, ok)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if maxStateFile = len(raw) - 1; loadJournal(path, root) != nil {
		t.Error("a state file larger than maxStateFile was read")
	}
}
