package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTwoPluginsSeeOneSameSizeEdit: two plugins matching one file share
// its stat and hash in a load; a same-size edit with its mtime put back
// reaches both, whichever of them read it first, with the run's stats.
func TestTwoPluginsSeeOneSameSizeEdit(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"vx.workspace.json": `{"plugins":[{"plugin":"./tools/ref.mjs","options":{"log":"starts.log"}},
			{"plugin":"./tools/ref2.mjs","options":{"taskName":"ref2"}}]}`,
		"tools/ref2.mjs": referencePlugin(t),
	})
	ref := filepath.Join(root, "packages", "a", "vx-ref.json")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(ref, old, old); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range []string{"echo ref B", "echo ref C", "echo ref D"} {
		// A warm load between edits: the stored stamps are trusted.
		loadListed(t, root)
		if i == 1 {
			time.Sleep(2100 * time.Millisecond) // the ctime out of the racy window
			loadListed(t, root)
			mustLoad(t, root)
		}
		f, err := os.OpenFile(ref, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte(`{"command":"`+cmd+`","outputs":["out/**"]}`), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(ref, old, old); err != nil {
			t.Fatal(err)
		}
		m := loadListed(t, root)
		for _, name := range []string{"ref", "ref2"} {
			if def, _ := m.Resolve("a", name); def.Command != cmd {
				t.Errorf("edit %d: a#%s runs %q, want %q", i, name, def.Command, cmd)
			}
		}
	}
}
