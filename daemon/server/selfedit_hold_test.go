package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSelfEditsAreHeldAfterARunAndReleasedByAnotherEdit: an edit of a
// plugin's source counts as the plugin's own when the file was written
// within the last reload and that reload asked the plugin; such edits
// of one file alone reload maxSelfReloads times in a row, then no more
// (those of another file still do), until an edit of another kind (one
// of the user's) reloads. A run over two files in turn is never held.
func TestSelfEditsAreHeldAfterARunAndReleasedByAnotherEdit(t *testing.T) {
	file, other := filepath.Join(t.TempDir(), "plugin.mjs"), filepath.Join(t.TempDir(), "gen.json")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	written := st.ModTime()
	asked := map[string]bool{"./plugin.mjs": true}
	span := func(s *selfEdits, asked map[string]bool) (bool, bool) {
		return s.reloaded(written.Add(-time.Second), written.Add(time.Second), asked)
	}

	var s selfEdits
	if s.during("./plugin.mjs", file) {
		t.Fatal("an edit before any reload counts as the plugin's own")
	}
	span(&s, map[string]bool{"./plugin.mjs": false})
	if s.during("./plugin.mjs", file) {
		t.Error("an edit during a reload that did not ask the plugin counts as its own")
	}
	span(&s, asked)
	if !s.during("./plugin.mjs", file) || s.during("./other.mjs", file) {
		t.Fatal("an edit during a reload that asked the plugin does not count as its own (or counts as another's)")
	}
	for i := 1; i <= maxSelfReloads; i++ {
		if !s.admit("./plugin.mjs", file) {
			t.Fatalf("the plugin's own edit %d is held", i)
		}
		if held, _ := span(&s, asked); held != (i == maxSelfReloads) {
			t.Fatalf("after %d reloads of the plugin's own edits, held now = %v", i, held)
		}
	}
	if s.admit("./plugin.mjs", file) {
		t.Fatal("a plugin's own edit reloads after a run of them")
	}
	if !s.admit("./plugin.mjs", other) {
		t.Fatal("a plugin's own edit of another file is held after a run of edits of one")
	}
	if !s.admit("", file) {
		t.Fatal("an edit of the user's is held")
	}
	if held, released := span(&s, asked); held || !released {
		t.Fatalf("the user's edit's reload: held now %v, released %v", held, released)
	}
	if !s.admit("./plugin.mjs", file) {
		t.Fatal("a plugin's own edit is held after the user's edit reloaded")
	}
	span(&s, asked) // its reload: a run of one, of file
	for i := 1; i <= 2*maxSelfReloads; i++ {
		f := file
		if i%2 == 0 {
			f = other
		}
		if !s.admit("./plugin.mjs", f) {
			t.Fatalf("edit %d of a run over two files (a branch switch) is held", i)
		}
		if held, _ := span(&s, asked); held {
			t.Fatalf("a run of edits over two files is held after %d", i)
		}
	}
	later := written.Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	if s.during("./plugin.mjs", file) {
		t.Error("an edit after the reload counts as the plugin's own")
	}
}
