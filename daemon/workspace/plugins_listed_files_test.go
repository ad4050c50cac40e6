package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestListedLoadSeesAddedAndRemovedFiles: with the run's listing and
// stats, a matched file added, removed, or replaced by a directory or a
// symlink changes the inferred tasks at the next load.
func TestListedLoadSeesAddedAndRemovedFiles(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	loadListed(t, root)
	loadListed(t, root)
	b := filepath.Join(root, "packages", "b", "vx-ref.json")
	if err := os.WriteFile(b, []byte(`{"command":"echo ref b","outputs":["out/**"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m := loadListed(t, root)
	if def, ok := m.Resolve("b", "ref"); !ok || def.Command != "echo ref b" {
		t.Fatalf("added b/vx-ref.json: b#ref %v %+v", ok, def)
	}
	a := filepath.Join(root, "packages", "a", "vx-ref.json")
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	m = loadListed(t, root)
	if _, ok := m.Resolve("a", "ref"); ok {
		t.Fatal("removed a/vx-ref.json: a#ref is still inferred")
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(b, 0o755); err != nil {
		t.Fatal(err)
	}
	m = loadListed(t, root)
	if _, ok := m.Resolve("b", "ref"); ok {
		t.Fatal("b/vx-ref.json made a directory: b#ref is still inferred")
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "other.json"), []byte(`{"command":"echo linked","outputs":["out/**"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "..", "other.json"), b); err != nil {
		t.Fatal(err)
	}
	m = loadListed(t, root)
	if def, ok := m.Resolve("b", "ref"); !ok || def.Command != "echo linked" {
		t.Fatalf("b/vx-ref.json a symlink: b#ref %v %+v (starts %q)", ok, def, starts(t, root))
	}
}
