package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/protocol/wire"
)

// Unchanged proves a path only since a token of the answer's epoch no
// older than the saved state's, with a complete answer that does not list
// it, in the journal's view.
func TestUnchangedOnlySinceACoveredToken(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	j := &fakeVXD{root: root, ans: wire.Changes{Epoch: "e1", Seq: 5, Reason: "no token was given"}}
	hashAll(t, root, j)
	if c, _ := journal.OpenChanges(context.Background(), root, j.source); c.Unchanged("e1", 5, filepath.Join(root, "a")) {
		t.Error("an answer that proves nothing proved a")
	}
	j.ans = wire.Changes{Epoch: "e1", Seq: 9, Complete: true, Changed: []string{"p/b"}}
	c, _ := journal.OpenChanges(context.Background(), root, j.source)
	for _, tc := range []struct {
		what  string
		epoch string
		seq   uint64
		path  string
		want  bool
	}{
		{"since the saved token", "e1", 5, "p/a", true},
		{"since a later token", "e1", 7, "p/a", true},
		{"since an older token", "e1", 4, "p/a", false},
		{"since another epoch's token", "e0", 5, "p/a", false},
		{"a changed path", "e1", 5, "p/b", false},
		{"under .vx", "e1", 5, ".vx/outputs", false},
		{"under node_modules", "e1", 5, "p/node_modules/x", false},
		{"outside the root", "e1", 5, "../x", false},
	} {
		if got := c.Unchanged(tc.epoch, tc.seq, filepath.Join(root, tc.path)); got != tc.want {
			t.Errorf("%s: Unchanged = %v, want %v", tc.what, got, tc.want)
		}
	}
	var none *journal.Changes
	if none.Unchanged("e1", 5, filepath.Join(root, "p/a")) {
		t.Error("no journal proved a path")
	}
}
