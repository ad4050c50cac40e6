//go:build unix

package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStoredAnswerForgetsARemovedTabNamedFile: a matched file whose path
// holds a tab is not kept among the store's file records (encodeFiles),
// yet the tasks stored were given with it. Removing it leaves the stored
// records exactly the files matched now, and the plugin must still be
// asked again: its task from the removed file is gone. (Unix only:
// Windows refuses a tab in a file's name.)
func TestStoredAnswerForgetsARemovedTabNamedFile(t *testing.T) {
	needNode(t)
	root := pluginTree(t, map[string]string{
		"packages/t\tx/package.json": `{"name":"tx"}`,
		"packages/t\tx/vx-ref.json":  `{"command":"echo ref tx"}`,
	})
	m := mustLoad(t, root)
	if def, ok := m.Resolve("tx", "ref"); !ok || def.Command != "echo ref tx" {
		t.Fatalf("tx#ref before the removal: %+v, %v", def, ok)
	}
	mustLoad(t, root)
	if err := os.Remove(filepath.Join(root, "packages", "t\tx", "vx-ref.json")); err != nil {
		t.Fatal(err)
	}
	m = mustLoad(t, root)
	if _, ok := m.Inferred("tx", "ref"); ok {
		t.Fatalf("tx#ref is still inferred after its vx-ref.json was removed (plugin started %q)", starts(t, root))
	}
	if def, ok := m.Resolve("a", "ref"); !ok || def.Command != "echo ref a" {
		t.Fatalf("a#ref after the removal: %+v, %v", def, ok)
	}
}
