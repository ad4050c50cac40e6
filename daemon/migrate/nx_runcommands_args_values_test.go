package migrate

import "testing"

// TestNxRunCommandsArgsOfOtherValues: an nx:run-commands "args" list
// holding numbers or booleans is joined as Nx joins it (["--max-warnings",
// 0] is "--max-warnings 0"), and args of a shape Nx does not take (an
// object, a list holding one) get a todo; before, either was dropped
// without a word, and the task ran its command without them.
func TestNxRunCommandsArgsOfOtherValues(t *testing.T) {
	dir := copyLayout(t, "nx-graph")
	const g = `{"graph": {"nodes": {
  "a": {"name": "a", "type": "lib", "data": {"root": "libs/a", "name": "a", "tags": [], "targets": {
    "lint": {"executor": "nx:run-commands", "options": {"command": "eslint", "cwd": "libs/a", "args": ["--max-warnings", 0, "--cache", true]}},
    "fmt": {"executor": "nx:run-commands", "options": {"command": "prettier", "cwd": "libs/a", "args": {"check": true}}}
  }}},
  "web": {"name": "web", "type": "app", "data": {"root": "apps/web", "name": "web", "tags": [], "targets": {}}}
}, "dependencies": {"a": [], "web": []}}}`
	p := planWithGraph(t, dir, g)
	if !hasTodo(p, "args") {
		t.Errorf("no todo says fmt's args (an object) were not translated: %+v", p.Todos)
	}
	m := applyAndLoad(t, p, dir)
	def, ok := m.Resolve("a", "lint")
	if want := "eslint --max-warnings 0 --cache true"; !ok || def.Command != want {
		t.Errorf("a#lint: command %q (defined %v), want %q", def.Command, ok, want)
	}
}
