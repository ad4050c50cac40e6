package plugins_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// scriptedWorkspace is TanStack/query's shape in small, in a fresh git
// repository: projects lint through a script of their own that lints
// src/ alone (their tool scripts would fail the shared config), an
// example with no lint script and lint errors, and an ESLint plugin of
// the workspace, built from src/ into dist/ (ignored by git), that the
// app's config loads by name. node_modules holds ESLint (linked from
// node/), the workspace's packages and the eslint plugin of vx.
func scriptedWorkspace(t *testing.T, tools string) string {
	t.Helper()
	root := harness.TempRoot(t)
	for rel, text := range map[string]string{
		".gitignore":        ".vx/\nnode_modules/\ndist/\n",
		"package.json":      `{"name": "root", "private": true, "type": "module", "workspaces": ["packages/*"]}`,
		"vx.workspace.json": `{"projects": ["packages/*"], "plugins": ["@vzn/vx-plugin-eslint"]}`,
		"eslint.config.mjs": "export default [{ files: ['**/*.js', '**/*.mjs'], languageOptions: { sourceType: 'module' },\n" +
			"  rules: { 'no-unused-vars': 'error', 'no-undef': 'off' } }];\n",
		"packages/app/package.json":      `{"name": "app", "type": "module", "scripts": {"test:eslint": "eslint ./src"}}`,
		"packages/app/eslint.config.mjs": "import base from '../../eslint.config.mjs';\nimport rules from 'rules';\nexport default [...base, rules.configs.recommended];\n",
		"packages/app/src/main.js":       "export const three = 1 + 2;\n",
		"packages/app/scripts/gen.js":    "const unused = 1;\nexport {};\n",
		"packages/rules/package.json": `{"name": "rules", "type": "module", "main": "dist/index.js",` +
			` "scripts": {"build": "node build.mjs", "test:eslint": "eslint ./src"}}`,
		"packages/rules/build.mjs":      "import { cpSync } from 'node:fs';\ncpSync('src', 'dist', { recursive: true });\n",
		"packages/rules/src/index.js":   "export default { configs: { recommended: { rules: { 'no-debugger': 'error' } } } };\n",
		"packages/example/package.json": `{"name": "example", "type": "module", "scripts": {"dev": "node src/main.js"}}`,
		"packages/example/src/main.js":  "const unused = 1;\nexport {};\n",
	} {
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), text)
	}
	commitWorkspace(t, root, tools, map[string]string{"node_modules/rules": "../packages/rules"}, "vx-plugin-eslint")
	return root
}

// TestFirstLintGivesTheRepositorysVerdicts: the first `vx run lint` on a
// fresh clone of a workspace that lints through its projects' scripts
// (TanStack/query, where `eslint .` failed 84 of 101 projects) passes
// where the repository's own lint passes: each project lints what its
// script lints, the example the repository does not lint gets no task,
// and the ESLint plugin of the workspace that the app's config loads is
// built first. The task follows an edit of the script; a lint error in
// what the script lints fails it.
func TestFirstLintGivesTheRepositorysVerdicts(t *testing.T) {
	tools := toolsDir(t)
	root := scriptedWorkspace(t, tools)
	env := harness.Env("VX_LOG", "CI")
	r := harness.Run(t, root, env, vxBin, "run", "lint", "--continue", "--format", "json")
	got, code := summary(t, r)
	want := map[string]string{"app#lint": "ran", "rules#lint": "ran", "rules#build": "ran"}
	if !reflect.DeepEqual(whats(got), want) || code != 0 {
		t.Errorf("first vx run lint: did %v (exit %d), want %v (exit 0)\n%s", whats(got), code, want, r)
	}
	// The script is what the task runs: vx asks the plugin again when a
	// package.json changes, and `eslint .` lints scripts/gen.js too.
	replace(t, root, "packages/app/package.json", `"eslint ./src"`, `"eslint ."`)
	r = harness.Run(t, root, env, vxBin, "run", "lint", "--continue", "--format", "json")
	got, code = summary(t, r)
	want = map[string]string{"app#lint": "failed", "rules#lint": "hit", "rules#build": "hit"}
	if !reflect.DeepEqual(whats(got), want) || code != 1 {
		t.Errorf("vx run lint after app's script became eslint .: did %v (exit %d), want %v (exit 1)\n%s", whats(got), code, want, r)
	}
	replace(t, root, "packages/app/package.json", `"eslint ."`, `"eslint ./src"`)
	replace(t, root, "packages/app/src/main.js", "export const three", "const unused = 1;\nexport const three")
	r = harness.Run(t, root, env, vxBin, "run", "lint", "--continue", "--format", "json")
	got, code = summary(t, r)
	want = map[string]string{"app#lint": "failed", "rules#lint": "hit", "rules#build": "hit"}
	if !reflect.DeepEqual(whats(got), want) || code != 1 {
		t.Errorf("vx run lint after a lint error in app/src: did %v (exit %d), want %v (exit 1)\n%s", whats(got), code, want, r)
	}
}
