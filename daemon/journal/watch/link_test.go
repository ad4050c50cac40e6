package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A workspace entered through a symbolic link (vxd's root is the link's
// path) is watched as the tree the link names: an edit below it is in the
// next answer.
func TestJournalWatchesALinkedRoot(t *testing.T) {
	tmp := t.TempDir()
	real, root := filepath.Join(tmp, "real"), filepath.Join(tmp, "link")
	if err := os.MkdirAll(filepath.Join(real, "pkg/src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, root); err != nil {
		t.Fatal(err)
	}
	j := startReadyJournal(t, root, 1000)
	tok := j.token(t)
	write(t, filepath.Join(root, "pkg/src/a.js"), "a")
	ans := j.ask(t, tok)
	if !ans.Complete || !strings.Contains(" "+strings.Join(ans.Changed, " ")+" ", " pkg/src/a.js ") {
		t.Fatalf("an edit below a linked root: %+v, want pkg/src/a.js among the changes", ans)
	}
}

// A linked root pointed at another directory ends the journal's proof:
// its watches are on the old tree, and what changes in the new one would
// be reported nowhere.
func TestJournalSeesALinkedRootRepointed(t *testing.T) {
	tmp := t.TempDir()
	a, b, root := filepath.Join(tmp, "a"), filepath.Join(tmp, "b"), filepath.Join(tmp, "link")
	for _, d := range []string{a, b} {
		if err := os.MkdirAll(filepath.Join(d, "pkg/src"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(a, root); err != nil {
		t.Fatal(err)
	}
	j := startReadyJournal(t, root, 1000)
	tok := j.token(t)
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b, root); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "pkg/src/a.js"), "a")
	if ans := j.ask(t, tok); ans.Complete || ans.Epoch != "" {
		t.Fatalf("after the root was pointed elsewhere: %+v, want no proof", ans)
	}
}
