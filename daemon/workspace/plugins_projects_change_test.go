package workspace_test

import "testing"

// TestStoredAnswerFollowsTheProjects: a stored tasks answer holds for the
// projects it was given for. A project added, or one renamed, with every
// matched file as it was, asks the plugin again, and the tasks follow the
// new names; the load after that starts nothing.
func TestStoredAnswerFollowsTheProjects(t *testing.T) {
	needNode(t)
	root := pluginTree(t, nil)
	mustLoad(t, root)
	mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks" {
		t.Fatalf("cold and warm loads started %q", got)
	}
	writeTree(t, root, map[string]string{"packages/c/package.json": `{"name":"c"}`})
	mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks,tasks" {
		t.Fatalf("a project added: started %q", got)
	}
	writeTree(t, root, map[string]string{"packages/a/package.json": `{"name":"a2","scripts":{"build":"echo build a"}}`})
	m := mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks,tasks,tasks" {
		t.Fatalf("a project renamed: started %q", got)
	}
	if def, ok := m.Resolve("a2", "ref"); !ok || def.Command != "echo ref a" {
		t.Fatalf("a2#ref after the rename: %+v, %v", def, ok)
	}
	if _, ok := m.Inferred("a", "ref"); ok {
		t.Fatal("a#ref is still inferred after a was renamed")
	}
	mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks,tasks,tasks" {
		t.Fatalf("a warm load after the rename started %q", got)
	}
}
