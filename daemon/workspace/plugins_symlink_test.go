package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestMatchedSymlinkTargetEditIsSeen: a matched file that is a symbolic
// link is hashed through it, so an edit of its target (the link itself
// unchanged, stat'ed long after it was made) is asked about again, with
// and without the run's stats.
func TestMatchedSymlinkTargetEditIsSeen(t *testing.T) {
	needNode(t)
	for _, listed := range []bool{false, true} {
		root := linkedRefTree(t)
		load := func() string {
			m := mustLoad(t, root)
			if listed {
				m = loadListed(t, root)
			}
			def, _ := m.Resolve("a", "ref")
			return def.Command
		}
		// The link's own stamp (its ctime cannot be set back) must be
		// older than the racy window when the answer is stored.
		time.Sleep(2100 * time.Millisecond)
		if got := load(); got != "echo ref A" {
			t.Fatalf("listed=%v: a#ref runs %q", listed, got)
		}
		if err := os.WriteFile(filepath.Join(root, "shared", "ref.json"), []byte(`{"command":"echo ref B","outputs":["out/**"]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := load(); got != "echo ref B" {
			t.Errorf("listed=%v: after its link's target was edited a#ref runs %q (plugin starts %q)", listed, got, starts(t, root))
		}
	}
}

// TestMatchedSymlinkLeavesStoreAlone: a symlinked matched file, read again
// at each load, does not make each load rewrite the plugin's store when
// what it reads is what the store holds.
func TestMatchedSymlinkLeavesStoreAlone(t *testing.T) {
	needNode(t)
	root := linkedRefTree(t)
	time.Sleep(2100 * time.Millisecond) // every stamp out of the racy window
	loadListed(t, root)
	loadListed(t, root)
	store := onlyStore(t, root)
	before, err := os.Stat(store)
	if err != nil {
		t.Fatal(err)
	}
	if def, _ := loadListed(t, root).Resolve("a", "ref"); def.Command != "echo ref A" {
		t.Fatalf("a#ref %+v", def)
	}
	after, err := os.Stat(store)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("a warm load rewrote the store")
	}
}

// linkedRefTree is pluginTree with packages/a's vx-ref.json a symbolic
// link to shared/ref.json, which says "echo ref A".
func linkedRefTree(t *testing.T) string {
	t.Helper()
	root := pluginTree(t, map[string]string{"shared/ref.json": `{"command":"echo ref A","outputs":["out/**"]}`})
	ref := filepath.Join(root, "packages", "a", "vx-ref.json")
	if err := os.Remove(ref); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "shared", "ref.json"), ref); err != nil {
		t.Fatal(err)
	}
	return root
}
