package server

import (
	"fmt"
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
// of the user's) reloads. Two files written in turn are each held after
// maxSelfReloads edits; many files written once each are held only once
// the plugin's edits caused maxPluginSelfReloads reloads of the run.
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
	s.admit("", other)
	span(&s, asked) // a user's edit ends the run
	// Edits of many files, each once (a branch switch), hold none, up to
	// maxPluginSelfReloads reloads of them.
	for i := 1; i < maxPluginSelfReloads; i++ {
		f := filepath.Join(filepath.Dir(other), fmt.Sprintf("gen%d.json", i))
		if !s.admit("./plugin.mjs", f) {
			t.Fatalf("edit %d of a run over many files is held", i)
		}
		if held, _ := span(&s, asked); held {
			t.Fatalf("a run of edits over many files, each once, is held after %d", i)
		}
	}
	// The plugin's edits of one more reload are held, of any file.
	s.admit("./plugin.mjs", filepath.Join(filepath.Dir(other), "last.json"))
	if held, _ := span(&s, asked); !held || s.admit("./plugin.mjs", filepath.Join(filepath.Dir(other), "next.json")) {
		t.Fatalf("a plugin's edits of %d reloads in a run, of new files each time, are not held", maxPluginSelfReloads)
	}
	s.admit("", other)
	span(&s, asked)
	// Two files in turn: each is held after maxSelfReloads edits of it.
	heldAt := 0
	for i := 1; i <= 2*maxSelfReloads; i++ {
		f := file
		if i%2 == 0 {
			f = other
		}
		if !s.admit("./plugin.mjs", f) {
			t.Fatalf("edit %d of a run over two files in turn is held", i)
		}
		if held, _ := span(&s, asked); held {
			heldAt = i
			if s.admit("./plugin.mjs", f) {
				t.Fatalf("edits of %s reload after it was held", f)
			}
		}
	}
	if heldAt != 2*maxSelfReloads || s.admit("./plugin.mjs", file) || s.admit("./plugin.mjs", other) {
		t.Fatalf("two files written in turn: last held at edit %d, want both held by edit %d", heldAt, 2*maxSelfReloads)
	}
	later := written.Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	if s.during("./plugin.mjs", file) {
		t.Error("an edit after the reload counts as the plugin's own")
	}
}
