package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// nxWithPlugins is the "nx" layout with @vzn/vx-plugin-eslint installed
// and nx.json "plugins" set to plugins (JSON).
func nxWithPlugins(t *testing.T, plugins string) string {
	t.Helper()
	dir := copyLayout(t, "nx")
	installVxPlugin(t, dir, "vx-plugin-eslint")
	nxJSON := filepath.Join(dir, "nx.json")
	b, err := os.ReadFile(nxJSON)
	if err != nil {
		t.Fatal(err)
	}
	const was = `"plugins": [{ "plugin": "@nx/eslint/plugin", "options": { "targetName": "eslint" } }]`
	if !strings.Contains(string(b), was) {
		t.Fatalf("nx.json of the layout holds no %s", was)
	}
	if err := os.WriteFile(nxJSON, []byte(strings.Replace(string(b), was, `"plugins": `+plugins, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestNxPluginScopeCarriedOver: vx init declares the vx plugin replacing
// an Nx plugin with the include and exclude nx.json gives it, Nx's
// extended globs translated, and the written configuration loads.
func TestNxPluginScopeCarriedOver(t *testing.T) {
	dir := nxWithPlugins(t, `[{"plugin": "@nx/eslint/plugin", "include": ["packages/**/*", "apps/web/**"], "exclude": ["packages/**/?(*.)+(spec|test).ts", "!packages/keep/**"]}]`)
	p, err := PlanInit(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := fileText(t, p, "vx.workspace.json")
	want := `"plugins": [
    {
      "exclude": [
        "packages/**/{*.,}{spec,test}.ts",
        "!packages/keep/**"
      ],
      "include": [
        "packages/**/*",
        "apps/web/**"
      ],
      "plugin": "@vzn/vx-plugin-eslint"
    }
  ]`
	if !strings.Contains(ws, want) {
		t.Errorf("vx.workspace.json does not carry the scope over:\n%s", ws)
	}
	if hasTodo(p, "@vzn/vx-plugin-eslint") {
		t.Errorf("a todo about the plugin: %+v", p.Todos)
	}
	if _, err := Apply(p, dir, nil); err != nil {
		t.Fatal(err)
	}
	m, err := workspace.Load(dir)
	if err != nil {
		t.Fatalf("loading the written config: %v", err)
	}
	if ps := m.Plugins(); len(ps) != 1 || len(ps[0].Include) != 2 || len(ps[0].Exclude) != 2 {
		t.Errorf("the loaded plugin's scope: %+v", ps)
	}
}

// TestNxPluginScopeNotTranslated: a scope vx globs cannot say (a negated
// extended glob, a numeric brace range, a "./" path Nx matches nothing
// with, a list that is not of strings) is not guessed at: the vx plugin
// is not declared, and a todo at the registration says which glob and
// why; so is a second registration of the same plugin, which vx cannot
// declare twice.
func TestNxPluginScopeNotTranslated(t *testing.T) {
	tests := []struct{ name, plugins, want string }{
		{"negated extglob", `[{"plugin": "@nx/eslint/plugin", "exclude": ["packages/!(core)/**"]}]`, `exclude "packages/!(core)/**"`},
		{"numeric range", `[{"plugin": "@nx/eslint/plugin", "include": ["packages/v{1..3}/**"]}]`, `include "packages/v{1..3}/**"`},
		{"dot path", `[{"plugin": "@nx/eslint/plugin", "include": ["./**/*"]}]`, `include "./**/*"`},
		{"not a list", `[{"plugin": "@nx/eslint/plugin", "include": "packages/**"}]`, `include: expected a list of globs`},
		{"twice", `[{"plugin": "@nx/eslint/plugin", "include": ["packages/**"]}, {"plugin": "@nx/eslint/plugin", "include": ["apps/**"], "options": {"targetName": "lint2"}}]`, `registers @nx/eslint/plugin again`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := nxWithPlugins(t, tc.plugins)
			p, err := PlanInit(t.Context(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			var found *Todo
			for i, td := range p.Todos {
				if strings.Contains(td.Reason, tc.want) {
					found = &p.Todos[i]
				}
			}
			if found == nil || found.File != "nx.json" || found.Line == 0 {
				t.Fatalf("no todo at nx.json says %q: %+v", tc.want, p.Todos)
			}
			ws := fileText(t, p, "vx.workspace.json")
			if tc.name != "twice" && strings.Contains(ws, "vx-plugin-eslint") {
				t.Errorf("the plugin is declared with a scope vx cannot say:\n%s", ws)
			}
			if tc.name == "twice" && strings.Count(ws, "vx-plugin-eslint") != 1 {
				t.Errorf("the plugin is not declared once:\n%s", ws)
			}
			if _, err := Apply(p, dir, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := workspace.Load(dir); err != nil {
				t.Fatalf("loading the written config: %v", err)
			}
		})
	}
}

// TestNxScopedPluginReplacesOnlyInScope: from Nx's resolved graph, a
// target the vx plugin infers is left to it only for a project in the
// declaration's scope; a project outside it keeps the target written in
// its vx.project.json (the scoped plugin infers nothing there).
func TestNxScopedPluginReplacesOnlyInScope(t *testing.T) {
	for _, tc := range []struct {
		name, plugins string
		written       bool
	}{
		{"in scope", `["@nx/jest/plugin", {"plugin": "@nx/vite/plugin", "include": ["libs/**"]}]`, false},
		{"out of scope", `["@nx/jest/plugin", {"plugin": "@nx/vite/plugin", "exclude": ["libs/**"]}]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyLayout(t, "nx-graph")
			installVxPlugin(t, dir, "vx-plugin-vitest")
			nxJSON := filepath.Join(dir, "nx.json")
			b, _ := os.ReadFile(nxJSON)
			const was = `"plugins": ["@nx/vite/plugin", "@nx/jest/plugin"]`
			if !strings.Contains(string(b), was) {
				t.Fatalf("nx.json holds no %s", was)
			}
			if err := os.WriteFile(nxJSON, []byte(strings.Replace(string(b), was, `"plugins": `+tc.plugins, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			graph, _ := filepath.Abs(filepath.Join("testdata", "nx-graph", "graph.json"))
			fakeNx(t, dir, `for a in "$@"; do case "$a" in --file=*) cp '`+graph+`' "${a#--file=}";; esac; done`)
			p, err := PlanInit(t.Context(), dir, &Options{RunNx: true})
			if err != nil {
				t.Fatal(err)
			}
			a := fileText(t, p, "libs/a/vx.project.json")
			if got := strings.Contains(a, `"vitest"`); got != tc.written {
				t.Errorf("a#test written in libs/a/vx.project.json: %v, want %v:\n%s", got, tc.written, a)
			}
		})
	}
}
