package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNxReplacedTargetKeepsItsDependsOn: a target a vx plugin replaces
// keeps, in vx.project.json, the dependsOn Nx's graph gives it (from
// targetDefaults or the project's own config; Nx's vitest plugin infers
// none): typescript-eslint's tests import their dependencies' built
// output and declare "^build", which the plugin cannot know. Only
// dependsOn is written: the command, inputs and outputs stay the
// plugin's.
func TestNxReplacedTargetKeepsItsDependsOn(t *testing.T) {
	dir := copyLayout(t, "nx-graph")
	installVxPlugin(t, dir, "vx-plugin-vitest")
	b, err := os.ReadFile(filepath.Join("testdata", "nx-graph", "graph.json"))
	if err != nil {
		t.Fatal(err)
	}
	const was = `"options": { "cwd": "libs/a", "command": "vitest" }, "cache": true,`
	if !strings.Contains(string(b), was) {
		t.Fatalf("graph.json of the layout holds no %s", was)
	}
	p := planWithGraph(t, dir, strings.Replace(string(b), was, was+` "dependsOn": ["^build", "lint"],`, 1))
	if ws := fileText(t, p, "vx.workspace.json"); !strings.Contains(ws, `"@vzn/vx-plugin-vitest"`) {
		t.Fatalf("vx.workspace.json does not declare the vitest plugin:\n%s", ws)
	}
	want := `"test": {
      "dependsOn": [
        "^build",
        "lint"
      ]
    }`
	if pj := fileText(t, p, "libs/a/vx.project.json"); !strings.Contains(pj, want) {
		t.Errorf("libs/a/vx.project.json does not keep test's dependsOn alone (want %s):\n%s", want, pj)
	}
}
