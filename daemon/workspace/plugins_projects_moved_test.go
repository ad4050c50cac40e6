package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStoredAnswerFollowsProjectsMovedSwappedRemoved: with every matched
// file as it was, two projects swapping names, a project without a
// matched file moved to another root, or removed, each ask the plugin
// again, and the inferred tasks follow the names; a warm load after each
// starts nothing.
func TestStoredAnswerFollowsProjectsMovedSwappedRemoved(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	mustLoad(t, root)
	mustLoad(t, root)
	want := "describe,tasks"
	steps := []struct {
		what string
		do   func()
	}{
		{"a and b swapped names", func() {
			writeTree(t, root, map[string]string{
				"packages/a/package.json": `{"name":"b","scripts":{"build":"echo build a"}}`,
				"packages/b/package.json": `{"name":"a","scripts":{"build":"echo build b"}}`,
			})
		}},
		{"a (now at packages/b, no matched file) moved", func() {
			if err := os.Rename(filepath.Join(root, "packages", "b"), filepath.Join(root, "packages", "b2")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a removed", func() {
			if err := os.RemoveAll(filepath.Join(root, "packages", "b2")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, st := range steps {
		st.do()
		m := mustLoad(t, root)
		want += ",tasks"
		if got := starts(t, root); got != want {
			t.Fatalf("%s: started %q, want %q", st.what, got, want)
		}
		if def, ok := m.Resolve("b", "ref"); !ok || def.Command != "echo ref a" || def.InferredFrom == nil {
			t.Fatalf("%s: b#ref is %+v, %v", st.what, def, ok)
		}
		if _, ok := m.Inferred("a", "ref"); ok {
			t.Fatalf("%s: a#ref is inferred", st.what)
		}
		mustLoad(t, root)
		if got := starts(t, root); got != want {
			t.Fatalf("a warm load after %s started %q", st.what, got)
		}
	}
}
