package migrate

import (
	"testing"
)

// TestNxRunCommandsForwardsArgsAndOptions: nx:run-commands appends to its
// command the options it does not know itself, as --name=value, and then
// "args", a string or a list (joined by spaces), unless forwardAllArgs is
// false. typescript-eslint's lint targets are {"command": "eslint"} with
// targetDefaults {"cwd": "{workspaceRoot}", "config":
// "{workspaceRoot}/eslint.config.mjs", "args": ["{projectRoot}"]}: Nx runs
// "eslint --config=eslint.config.mjs packages/utils" from the root, and
// vx init wrote "cd ../.. && eslint", which lints the whole repository in
// every project's task.
func TestNxRunCommandsForwardsArgsAndOptions(t *testing.T) {
	dir := copyLayout(t, "nx-graph")
	const g = `{"graph": {"nodes": {
  "a": {"name": "a", "type": "lib", "data": {"root": "libs/a", "name": "a", "tags": [], "targets": {
    "lint": {"executor": "nx:run-commands", "options": {"command": "eslint", "cwd": "", "config": "eslint.config.mjs", "args": ["libs/a", "--max-warnings", "0"]}, "cache": false},
    "check": {"executor": "nx:run-commands", "options": {"command": "tsc", "cwd": "libs/a", "pretty": true, "project": "tsconfig lib.json", "forwardAllArgs": false, "args": "--noEmit"}},
    "fmt": {"executor": "nx:run-commands", "options": {"command": "prettier", "cwd": "libs/a", "check": true, "args": "src"}}
  }}},
  "web": {"name": "web", "type": "app", "data": {"root": "apps/web", "name": "web", "tags": [], "targets": {}}}
}, "dependencies": {"a": [], "web": []}}}`
	p := planWithGraph(t, dir, g)
	if hasTodo(p, `run-commands option "config"`) || hasTodo(p, `run-commands option "check"`) {
		t.Errorf("a todo says an option Nx forwards was not translated: %+v", p.Todos)
	}
	m := applyAndLoad(t, p, dir)
	for _, c := range []struct{ task, command string }{
		{"lint", "cd ../.. && eslint --config=eslint.config.mjs libs/a --max-warnings 0"},
		{"check", "tsc"},
		{"fmt", "prettier --check=true src"},
	} {
		def, ok := m.Resolve("a", c.task)
		if !ok || def.Command != c.command {
			t.Errorf("a#%s: command %q (defined %v), want %q", c.task, def.Command, ok, c.command)
		}
	}
}
