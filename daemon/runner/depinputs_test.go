package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// TestDepInputsRekeyDependents: a "^" input makes a task's key follow the
// files of the projects it depends on, through a project in between, and
// only the files the globs pick; a "/" input, the workspace file it names.
func TestDepInputsRekeyDependents(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":        `{"projects": ["p/*"], "tasks": {"test": {"command": "true", "inputs": ["**", "^src/**", "^!**/*.spec.js", "/tsconfig.base.json"]}, "plain": {"command": "true"}}}`,
		"p/app/package.json":       `{"name": "app", "dependencies": {"mid": "*"}}`,
		"p/mid/package.json":       `{"name": "mid", "dependencies": {"core": "*"}}`,
		"p/core/package.json":      `{"name": "core"}`,
		"p/lone/package.json":      `{"name": "lone"}`,
		"p/core/src/index.js":      "export const a = 1",
		"p/core/src/index.spec.js": "test()",
		"p/core/README.md":         "core",
		"tsconfig.base.json":       "{}",
		"eslint.config.mjs":        "export default []",
	})
	keys := func() map[string]string {
		t.Helper()
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		p, err := runner.Prepare(context.Background(), &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"test", "plain"}}, Environ: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		return p.Keys
	}
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, file, text string
		moved            []string // the keys that change, of app#test, mid#test, lone#test, app#plain
	}{
		{"a dependency's source", "p/core/src/index.js", "export const a = 22", []string{"app#test", "mid#test"}},
		{"a dependency's spec file", "p/core/src/index.spec.js", "test(); test()", nil},
		{"a dependency's file outside the globs", "p/core/README.md", "core, longer", nil},
		{"a workspace file the task names", "tsconfig.base.json", `{"compilerOptions": {}}`, []string{"app#test", "mid#test", "lone#test"}},
		{"a workspace file the task does not name", "eslint.config.mjs", "export default [{}]", nil},
		{"the project's own file", "p/app/package.json", `{"name": "app", "version": "1.0.0", "dependencies": {"mid": "*"}}`, []string{"app#test", "app#plain"}},
	} {
		before := keys()
		write(c.file, c.text)
		after := keys()
		want := map[string]bool{}
		for _, id := range c.moved {
			want[id] = true
		}
		for _, id := range []string{"app#test", "mid#test", "lone#test", "app#plain"} {
			if moved := before[id] != after[id]; moved != want[id] {
				t.Errorf("%s: %s key moved %v, want %v", c.name, id, moved, want[id])
			}
		}
	}
}
