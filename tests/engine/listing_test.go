//go:build !windows

package engine_test

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"
)

// TestSavedListingSeesAddedAndRemovedFiles: once a warm run has saved the
// workspace listing (.vx/listing, reused while no directory, ignore rule,
// index or git configuration changed), an added file, a removed one and a
// file in a new directory still move the keys of the next run.
func TestSavedListingSeesAddedAndRemovedFiles(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	git(t, ws, "init", "-q")
	git(t, ws, "add", "-A")
	git(t, ws, "commit", "-qm", "init")
	listing := filepath.Join(ws, ".vx", "listing")
	runJSON(t, ws, nil, 0, "build")
	// A listing is saved only when what it stats is older than 2 s.
	settle := func() map[string]string {
		time.Sleep(2100 * time.Millisecond)
		s, _ := runJSON(t, ws, nil, 0, "build")
		if missed := misses(s); len(missed) > 0 {
			t.Fatalf("a warm run missed %v", missed)
		}
		st, err := os.Stat(listing)
		if err != nil {
			t.Fatalf("a warm run on a settled tree saved no listing: %v", err)
		}
		s, _ = runJSON(t, ws, nil, 0, "build")
		if missed := misses(s); len(missed) > 0 {
			t.Fatalf("a warm run missed %v", missed)
		}
		if again, err := os.Stat(listing); err != nil || !again.ModTime().Equal(st.ModTime()) {
			t.Fatalf("the next warm run did not reuse the saved listing (%v)", err)
		}
		return s.keys()
	}
	coreAndDependents := []string{"api#build", "core#build", "util#build", "web#build"}
	steps := []struct {
		name string
		do   func()
	}{
		{"a file added", func() {
			writeFiles(t, ws, map[string]string{"packages/core/src/extra.js": "export const extra = 1;\n"})
		}},
		{"a file removed", func() {
			if err := os.Remove(filepath.Join(ws, "packages/core/src/extra.js")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file in a new directory", func() { writeFiles(t, ws, map[string]string{"packages/core/src/deep/er.js": "export {};\n"}) }},
	}
	for _, step := range steps {
		before := settle()
		step.do()
		s, _ := runJSON(t, ws, nil, 0, "build")
		var moved []string
		for id, key := range s.keys() {
			if key != before[id] {
				moved = append(moved, id)
			}
		}
		sort.Strings(moved)
		if !reflect.DeepEqual(moved, coreAndDependents) {
			t.Errorf("%s: the next run's keys moved for %v, want %v", step.name, moved, coreAndDependents)
		}
	}
}

func misses(s *summary) []string {
	var out []string
	for _, r := range s.Tasks {
		if r.Cache != "hit" {
			out = append(out, r.TaskID)
		}
	}
	sort.Strings(out)
	return out
}
