package migrate

import (
	"context"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// TestPrePostScriptsRunThroughThePackageManager: `npm run build` runs a
// package's prebuild and postbuild around build (nextra's docs build
// their search index in postbuild, and turbo runs it so). vx init makes
// such a script run through the package manager, where the package
// manager runs them, and leaves every other script's command alone; where
// it cannot tell, a todo says so.
func TestPrePostScriptsRunThroughThePackageManager(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // a#build's command; "" keeps the script
		todo  bool
	}{
		{name: "npm", files: map[string]string{"package-lock.json": "{}"}, want: "npm run build"},
		{name: "pnpm, enabled in .npmrc", files: map[string]string{"pnpm-lock.yaml": "", ".npmrc": "shell-emulator=true\nenable-pre-post-scripts=true\n"}, want: "pnpm run build"},
		{name: "pnpm, enabled in pnpm-workspace.yaml", files: map[string]string{"pnpm-lock.yaml": "", "pnpm-workspace.yaml": "packages:\n  - pkgs/*\nenablePrePostScripts: true\n"}, want: "pnpm run build"},
		{name: "pnpm, disabled", files: map[string]string{"pnpm-lock.yaml": "", ".npmrc": "enable-pre-post-scripts = false\n"}},
		{name: "pnpm, unset", files: map[string]string{"pnpm-lock.yaml": ""}, todo: true},
		{name: "yarn 4", files: map[string]string{"yarn.lock": "", ".yarnrc.yml": "nodeLinker: node-modules\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"package.json":        `{"name": "root", "workspaces": ["pkgs/*"]}`,
				"pkgs/a/package.json": `{"name": "a", "scripts": {"prebuild": "echo pre", "build": "tsup", "postbuild": "pagefind", "test": "vitest"}}`,
				"pkgs/b/package.json": `{"name": "b", "scripts": {"build": "tsup"}}`,
				"turbo.json":          `{"tasks": {"build": {"dependsOn": ["^build"], "outputs": ["dist/**"]}, "test": {}}}`,
			}
			for k, v := range tc.files {
				files[k] = v
			}
			dir := writeLayout(t, files)
			p, err := PlanInit(context.Background(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Apply(p, dir, nil); err != nil {
				t.Fatal(err)
			}
			m, err := workspace.Load(dir)
			if err != nil {
				t.Fatalf("loading the written config: %v", err)
			}
			want := tc.want
			if want == "" {
				want = "tsup"
			}
			if d, _ := m.Resolve("a", "build"); d.Command != want {
				t.Errorf("a#build command %q, want %q (notes %v, todos %v)", d.Command, want, p.Notes, p.Todos)
			}
			for _, task := range []struct{ project, name, cmd string }{{"a", "test", "vitest"}, {"b", "build", "tsup"}} {
				if d, _ := m.Resolve(task.project, task.name); d.Command != task.cmd {
					t.Errorf("%s#%s command %q, want its script %q", task.project, task.name, d.Command, task.cmd)
				}
			}
			var todo bool
			for _, td := range p.Todos {
				todo = todo || strings.Contains(td.Reason, "the pre and post scripts of a#build do not run")
			}
			if todo != tc.todo {
				t.Errorf("a todo about a#build's pre and post scripts: %v, want %v (todos %v)", todo, tc.todo, p.Todos)
			}
		})
	}
}
