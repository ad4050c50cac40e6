package workspace_test

import (
	"os"
	"strings"
	"testing"
)

// TestEditedPluginStoreAsksAgain: a stored answer edited by hand into one
// that passes every check a plugin's answer gets (a task's command
// changed) is not taken either: the warm load, which takes a store as
// vx wrote it without checking each task again, asks the plugin again
// and serves its answer.
func TestEditedPluginStoreAsksAgain(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	mustLoad(t, root)
	before := starts(t, root)
	store := onlyStore(t, root)
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `"echo ref a"`, `"echo edited"`, 1)
	if edited == string(b) {
		t.Fatalf("the store does not hold what the test edits:\n%s", b)
	}
	if err := os.WriteFile(store, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mustLoad(t, root)
	if def, ok := m.Resolve("a", "ref"); !ok || def.Command != "echo ref a" {
		t.Errorf("a's ref after the edit: %v %+v", ok, def)
	}
	if after := starts(t, root); after == before {
		t.Errorf("the plugin was not asked again after the edit (starts %q)", after)
	}
	// Asked again, the answer is stored as vx wrote it: the next load
	// starts no plugin.
	again := starts(t, root)
	mustLoad(t, root)
	if got := starts(t, root); got != again {
		t.Errorf("a load after the store was rewritten started the plugin: %q, then %q", again, got)
	}
}
