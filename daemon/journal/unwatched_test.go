package journal_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// A file the listing holds but the journal does not watch (a file named
// node_modules is listed, and no watch reports it) is never taken from
// the journal: an edit to it is read by the next run.
func TestChangesReadWhatTheJournalDoesNotWatch(t *testing.T) {
	root := t.TempDir()
	name := filepath.Join("src", "node_modules")
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, name), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if wire.JournalCovers("src/node_modules") {
		t.Fatal("the journal now watches src/node_modules: this test needs another unwatched path")
	}
	j := &fakeVXD{root: root, ans: wire.Changes{Epoch: "e1", Seq: 5, Reason: "no token was given"}}
	first := hashAll(t, root, j, name)
	if err := os.WriteFile(filepath.Join(root, name), []byte("new content"), 0o644); err != nil {
		t.Fatal(err)
	}
	// No event comes for it: the journal answers that nothing changed.
	j.ans = wire.Changes{Epoch: "e1", Seq: 5, Complete: true}
	if second := hashAll(t, root, j, name); second[name] == first[name] {
		t.Fatal("an edit to a path the journal does not watch was not read: the journal's answer stood for it")
	}
}
