package migrate

import (
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// TestNxIncludedScriptsLeavesOthersUnrun: a package.json "nx" key with
// includedScripts makes Nx infer targets from those scripts only; a
// script it leaves out, and no target of Nx's graph has the name of, is
// not a task in Nx. vx runs every script as a task, so vx init gives
// those an empty command (a task that runs nothing): typescript-eslint's
// packages have "lint": "pnpm -w exec nx lint" and tsconfig-utils has no
// lint target, so vx run lint ran Nx there, which has no such task.
// Targets of the graph keep their commands, and so do scripts it lists.
func TestNxIncludedScriptsLeavesOthersUnrun(t *testing.T) {
	dir := copyLayout(t, "nx-graph")
	testtree.Write(t, dir, map[string]string{
		"libs/a/package.json": `{"name": "a", "scripts": {"clean": "rimraf dist", "lint": "pnpm -w exec nx lint", "format": "pnpm -w run format", "build": "pnpm exec nx build"}}`,
	})
	const g = `{"graph": {"nodes": {
  "a": {"name": "a", "type": "lib", "data": {"root": "libs/a", "name": "a", "tags": [], "includedScripts": ["clean"], "targets": {
    "clean": {"executor": "nx:run-script", "options": {"script": "clean"}},
    "build": {"executor": "nx:run-commands", "options": {"command": "tsc --build", "cwd": "libs/a"}}
  }}},
  "web": {"name": "web", "type": "app", "data": {"root": "apps/web", "name": "web", "tags": [], "targets": {}}}
}, "dependencies": {"a": [], "web": []}}}`
	p := planWithGraph(t, dir, g)
	if hasTodo(p, "includedScripts") {
		t.Errorf("a todo says includedScripts was not translated: %+v", p.Todos)
	}
	m := applyAndLoad(t, p, dir)
	for _, c := range []struct{ task, command string }{
		{"lint", ""},
		{"format", ""},
		{"clean", "rimraf dist"},
		{"build", "tsc --build"},
	} {
		if def, _ := m.Resolve("a", c.task); def.Command != c.command {
			t.Errorf("a#%s: command %q, want %q", c.task, def.Command, c.command)
		}
	}
}
