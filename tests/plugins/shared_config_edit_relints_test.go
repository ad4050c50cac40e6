package plugins_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestEditingTheWorkspacesSharedConfigRelints: a root config that imports
// a shared config kept in the workspace as a package with no build
// (honojs/middleware's `import baseConfig from '@hono/eslint-config'`,
// packages/eslint-config/index.js) makes that package's files inputs of
// every lint: an edit to its rules lints again and gives the new verdict,
// where the pnpm lockfile that `npm:@hono/eslint-config` stands for does
// not change and a cache hit would replay the old one.
func TestEditingTheWorkspacesSharedConfigRelints(t *testing.T) {
	tools := toolsDir(t)
	root := sharedConfigWorkspace(t, tools)
	editSteps(t, root, "lint", "app#lint", "packages/eslint-config/index.js", []editStep{
		{"first run", "", "", "ran", 0},
		{"no change", "", "", "hit", 0},
		{"the shared config turns no-unused-vars on", "'no-unused-vars': 'off'", "'no-unused-vars': 'error'", "failed", 1},
		{"and off again", "'no-unused-vars': 'error'", "'no-unused-vars': 'off'", "hit", 0},
	})
}

// editStep is one edit of a file (none when old is "") and what the next
// `vx run` must then do with the task, and its exit code.
type editStep struct {
	name, old, new string
	want           string
	code           int
}

// editSteps makes each step's edit of file in root and runs task's name
// (--continue, JSON summary), checking what was done with task.
func editSteps(t *testing.T, root, name, task, file string, steps []editStep) {
	t.Helper()
	env := harness.Env("VX_LOG", "CI")
	for _, step := range steps {
		if step.old != "" {
			replace(t, root, file, step.old, step.new)
		}
		r := harness.Run(t, root, env, vxBin, "run", name, "--continue", "--format", "json")
		got, code := summary(t, r)
		if want := map[string]string{task: step.want}; !reflect.DeepEqual(whats(got), want) || code != step.code {
			t.Errorf("%s: vx run %s did %v (exit %d), want %v (exit %d)\n%s", step.name, name, whats(got), code, want, step.code, r)
		}
	}
}

// sharedConfigWorkspace is honojs/middleware's shape in small, in a fresh
// git repository: a root eslint.config.mjs that spreads the workspace's
// own @acme/eslint-config (source, no build, linked into node_modules as a
// package manager links it), and an app whose lint script lints src/,
// where an unused variable is allowed by the shared config.
func sharedConfigWorkspace(t *testing.T, tools string) string {
	t.Helper()
	root := harness.TempRoot(t)
	for rel, text := range map[string]string{
		".gitignore":                          ".vx/\nnode_modules/\n",
		"package.json":                        `{"name": "root", "private": true, "type": "module", "workspaces": ["packages/*"]}`,
		"vx.workspace.json":                   `{"projects": ["packages/*"], "plugins": ["@vzn/vx-plugin-eslint"]}`,
		"eslint.config.mjs":                   "import base from '@acme/eslint-config';\nexport default [...base];\n",
		"packages/eslint-config/package.json": `{"name": "@acme/eslint-config", "type": "module", "exports": {".": "./index.js"}}`,
		"packages/eslint-config/index.js": "export default [{ files: ['**/*.js'], languageOptions: { sourceType: 'module' },\n" +
			"  rules: { 'no-unused-vars': 'off', 'no-undef': 'off' } }];\n",
		"packages/app/package.json": `{"name": "app", "type": "module", "scripts": {"lint": "eslint src"}}`,
		"packages/app/src/main.js":  "const unused = 1;\nexport const three = 1 + 2;\n",
	} {
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), text)
	}
	commitWorkspace(t, root, tools, map[string]string{"node_modules/@acme/eslint-config": "../../packages/eslint-config"}, "vx-plugin-eslint")
	return root
}

// commitWorkspace makes the files laid out under root a fresh git
// repository whose node_modules is what a package manager would install
// there: the pinned tools of node/ and the given links (relative targets),
// and vx's plugins (npm/vx-plugin-*) copied under @vzn/.
func commitWorkspace(t *testing.T, root, tools string, links map[string]string, plugins ...string) {
	t.Helper()
	entries, err := os.ReadDir(tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		link(t, root, "node_modules/"+e.Name(), filepath.Join(tools, e.Name()))
	}
	for rel, target := range links {
		link(t, root, rel, target)
	}
	for _, p := range plugins {
		harness.CopyTree(t, filepath.Join(harness.ModuleRoot(), "npm", p), filepath.Join(root, "node_modules", "@vzn", p))
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@vx.invalid", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}
