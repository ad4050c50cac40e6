package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNxPluginReplacedWhenInstalled: with @vzn/vx-plugin-eslint installed,
// vx init on an Nx workspace whose nx.json runs @nx/eslint/plugin (target
// "eslint") declares the vx plugin with that task name instead of leaving
// a todo about targets vx does not see; not installed, a todo at nx.json
// "plugins" proposes it with the command that installs it.
func TestNxPluginReplacedWhenInstalled(t *testing.T) {
	_, p := planLayout(t, "nx")
	if !hasTodo(p, "vx's plugin @vzn/vx-plugin-eslint infers the same tasks") || !hasTodo(p, "npm add -D @vzn/vx-plugin-eslint") {
		t.Errorf("not installed: no todo proposes @vzn/vx-plugin-eslint: %+v", p.Todos)
	}

	dir := copyLayout(t, "nx")
	installVxPlugin(t, dir, "vx-plugin-eslint")
	p, err := PlanInit(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := fileText(t, p, "vx.workspace.json")
	if !strings.Contains(ws, `"plugins": [
    {
      "options": {
        "taskName": "eslint"
      },
      "plugin": "@vzn/vx-plugin-eslint"
    }
  ]`) {
		t.Errorf("vx.workspace.json does not declare the plugin with task name eslint:\n%s", ws)
	}
	if hasTodo(p, "@vzn/vx-plugin-eslint") || hasTodo(p, "infer targets vx does not see") {
		t.Errorf("installed: a todo still proposes the plugin or names targets vx does not see: %+v", p.Todos)
	}
	found := false
	for _, n := range p.Notes {
		found = found || strings.Contains(n, "@nx/eslint/plugin: vx's plugin @vzn/vx-plugin-eslint, declared in vx.workspace.json plugins, infers the \"eslint\" tasks")
	}
	if !found {
		t.Errorf("no note says the vx plugin infers the eslint tasks: %q", p.Notes)
	}
}

// installVxPlugin writes node_modules/@vzn/<name>/package.json in dir,
// as installing vx's plugin of that name does.
func installVxPlugin(t *testing.T, dir, name string) {
	t.Helper()
	pkg := filepath.Join(dir, "node_modules", "@vzn", name, "package.json")
	if err := os.MkdirAll(filepath.Dir(pkg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkg, []byte(`{"name": "@vzn/`+name+`", "vx": {"plugin": "plugin.mjs"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hasTodo(p *Plan, s string) bool {
	for _, td := range p.Todos {
		if strings.Contains(td.Reason, s) {
			return true
		}
	}
	return false
}
