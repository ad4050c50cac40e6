package plugins_test

import (
	"reflect"
	"strings"
	"testing"
)

// commands maps each inferred task's project to its command.
func commands(got []task) map[string]string {
	out := map[string]string{}
	for _, tk := range got {
		out[tk.Project] = tk.Command
	}
	return out
}

// TestLintRunsTheProjectsOwnESLintScript: in a workspace whose projects
// lint through scripts of their own (TanStack/query's "test:eslint":
// "eslint --concurrency=auto ./src"), the lint task runs the project's
// script as written ("lint" first, else the first ESLint run, a --fix one
// left out), not `eslint .`, which would also lint the tool configs and
// fixtures the script leaves out; a project with no such script is one
// its authors do not lint (an example) and gets no task. A script that
// does more than run ESLint is not one. The projects option overrides the
// choice.
func TestLintRunsTheProjectsOwnESLintScript(t *testing.T) {
	pkg := func(name, scripts string) string {
		return `{"name": "` + name + `", "scripts": {` + scripts + `}}`
	}
	root := layout(t, map[string]string{
		"eslint.config.js":              "export default [];\n",
		"packages/a/package.json":       pkg("a", `"lint:fix": "eslint . --fix", "test:eslint": "eslint --concurrency=auto ./src"`),
		"packages/b/package.json":       pkg("b", `"check": "eslint .", "lint": "eslint src"`),
		"packages/c/package.json":       pkg("c", `"test:eslint": "ESLINT_USE_FLAT_CONFIG=false eslint ./src/**/*.tsx"`),
		"packages/d/package.json":       pkg("d", `"lint": "eslint . --fix"`),
		"packages/e/package.json":       pkg("e", `"lint": "eslint . && tsc", "report": "eslint . > out.txt", "x": "A=$(pwd) eslint ."`),
		"packages/example/package.json": pkg("example", `"dev": "vite"`),
		"packages/example/src/main.js":  "export {};\n",
		"packages/bare/index.js":        "export {};\n",
	})
	projects := []project{{"a", "packages/a"}, {"b", "packages/b"}, {"c", "packages/c"}, {"d", "packages/d"}, {"e", "packages/e"}, {"example", "packages/example"}, {"bare", "packages/bare"}}
	got := commands(tasks(t, "eslint", root, nil, []string{"eslint.config.js"}, projects))
	want := map[string]string{
		"a": "eslint --concurrency=auto ./src",
		"b": "eslint src",
		"c": "ESLINT_USE_FLAT_CONFIG=false eslint ./src/**/*.tsx",
		"d": "eslint .",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lint commands: got %v, want %v", got, want)
	}
	// With no project linting through a script, every project with a file
	// ESLint lints runs `eslint .` (as Nx's @nx/eslint infers).
	got = commands(tasks(t, "eslint", root, nil, []string{"eslint.config.js"}, []project{{"e", "packages/e"}, {"example", "packages/example"}, {"bare", "packages/bare"}}))
	if want := map[string]string{"example": "eslint .", "bare": "eslint ."}; !reflect.DeepEqual(got, want) {
		t.Errorf("lint commands with no ESLint script: got %v, want %v", got, want)
	}
	// The projects option says it outright: "all" lints the projects with
	// no script too (with `eslint .`), "scripted" only those with one.
	got = commands(tasks(t, "eslint", root, map[string]any{"projects": "all"}, []string{"eslint.config.js"}, projects))
	want["example"], want["bare"] = "eslint .", "eslint ."
	if !reflect.DeepEqual(got, want) {
		t.Errorf(`lint commands with projects "all": got %v, want %v`, got, want)
	}
	got = commands(tasks(t, "eslint", root, map[string]any{"projects": "scripted"}, []string{"eslint.config.js"}, projects[4:]))
	if len(got) != 0 {
		t.Errorf(`lint commands with projects "scripted" and no script: got %v, want none`, got)
	}
	a := ask(t, "eslint", root, map[string]any{"protocol": 1, "stage": "describe", "options": map[string]any{"projects": "some"}})
	if a.code == 0 || !strings.Contains(a.stderr, `option projects must be one of auto, scripted, all, not "some"`) {
		t.Errorf(`projects "some": exit %d, stderr %q; want it refused naming the values`, a.code, a.stderr)
	}
}

// TestLintWaitsForTheBuildOfAWorkspacePackageItsConfigLoads: a config
// that imports a package of the workspace by name (an ESLint plugin kept
// in the repository, as TanStack/query's examples import
// @tanstack/eslint-plugin-query) makes the lint task depend on that
// project's build: Node loads the package from the entry its package.json
// names, its built output, which a fresh clone does not have. A workspace
// package with no build script, an npm package and the project itself add
// nothing.
func TestLintWaitsForTheBuildOfAWorkspacePackageItsConfigLoads(t *testing.T) {
	root := layout(t, map[string]string{
		"eslint.config.js": "import shared from '@acme/eslint-config';\nexport default [...shared];\n",
		"packages/app/eslint.config.js": "import base from '../../eslint.config.js';\nimport query from '@acme/eslint-plugin';\nimport globals from 'globals';\n" +
			"export default [...base, query.configs.recommended, { languageOptions: { globals: globals.browser } }];\n",
		"packages/app/package.json":               `{"name": "app", "scripts": {"lint": "eslint src", "build": "vite build"}}`,
		"packages/eslint-plugin/package.json":     `{"name": "@acme/eslint-plugin", "main": "dist/index.js", "scripts": {"build": "tsc", "lint": "eslint src"}}`,
		"packages/eslint-plugin/eslint.config.js": "import self from '@acme/eslint-plugin';\nimport base from '../../eslint.config.js';\nexport default [...base, self.configs.recommended];\n",
		"packages/eslint-config/package.json":     `{"name": "@acme/eslint-config", "main": "index.js", "scripts": {"lint": "eslint ."}}`,
	})
	files := []string{"eslint.config.js", "packages/app/eslint.config.js", "packages/eslint-plugin/eslint.config.js"}
	projects := []project{{"app", "packages/app"}, {"@acme/eslint-plugin", "packages/eslint-plugin"}, {"@acme/eslint-config", "packages/eslint-config"}}
	got := map[string][]string{}
	for _, tk := range tasks(t, "eslint", root, nil, files, projects) {
		got[tk.Project] = tk.DependsOn
	}
	want := map[string][]string{"app": {"@acme/eslint-plugin#build"}, "@acme/eslint-plugin": nil, "@acme/eslint-config": nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lint dependsOn: got %v, want %v", got, want)
	}
}

// TestLegacyConfigOfAScriptNamesTheBuilds: a script that turns flat config
// off (TanStack/query's eslint-legacy example: "ESLINT_USE_FLAT_CONFIG=false
// eslint ./src/**/*.tsx", whose .eslintrc extends
// plugin:@tanstack/query/recommended) lints with the .eslintrc* files from
// the project up to the workspace root (to one saying root: true): the
// plugins and shareable configs they name, by ESLint's naming rules, are
// npm inputs, a workspace package among them with a build script is built
// first, and a config outside the project is an input. A project whose
// script keeps flat config reads no .eslintrc.
func TestLegacyConfigOfAScriptNamesTheBuilds(t *testing.T) {
	files := map[string]string{
		"eslint.config.js":        "export default [];\n",
		".eslintrc.yml":           "plugins:\n  - '@acme/extra'\n",
		"examples/.eslintrc.json": `{"root": true, "extends": ["eslint:recommended", "@acme/base"]}`,
		"examples/legacy/.eslintrc": `{"parser": "@typescript-eslint/parser", "plugins": ["@typescript-eslint"],` +
			` "extends": ["plugin:@acme/query/recommended"]}`,
		"examples/legacy/package.json": `{"name": "legacy", "scripts": {"test:eslint": "ESLINT_USE_FLAT_CONFIG=false eslint ./src/**/*.tsx"}}`,
		"examples/flat/.eslintrc":      `{"extends": ["plugin:@acme/query/recommended"]}`,
		"examples/flat/package.json":   `{"name": "flat", "scripts": {"lint": "eslint ./src"}}`,
		"packages/query/package.json":  `{"name": "@acme/eslint-plugin-query", "scripts": {"build": "tsdown"}}`,
		"packages/base/package.json":   `{"name": "@acme/eslint-config-base", "scripts": {"build": "tsc"}}`,
		"packages/extra/package.json":  `{"name": "@acme/eslint-plugin-extra", "scripts": {"build": "tsc"}}`,
	}
	root := layout(t, files)
	var sent []string
	for f := range files {
		sent = append(sent, f)
	}
	projects := []project{{"legacy", "examples/legacy"}, {"flat", "examples/flat"}, {"@acme/eslint-plugin-query", "packages/query"},
		{"@acme/eslint-config-base", "packages/base"}, {"@acme/eslint-plugin-extra", "packages/extra"}}
	got := map[string]task{}
	for _, tk := range tasks(t, "eslint", root, nil, sent, projects) {
		got[tk.Project] = tk
	}
	legacy, flat := got["legacy"], got["flat"]
	if want := []string{"@acme/eslint-config-base#build", "@acme/eslint-plugin-query#build"}; !reflect.DeepEqual(legacy.DependsOn, want) {
		t.Errorf("legacy dependsOn: got %v, want %v", legacy.DependsOn, want)
	}
	wantInputs := append(append([]string{}, eslintBase...), "/eslint.config.js", "/examples/.eslintrc.json", "npm:eslint",
		"npm:@acme/eslint-config-base", "npm:@acme/eslint-plugin-query", "npm:@typescript-eslint/eslint-plugin")
	if !reflect.DeepEqual(legacy.Inputs, wantInputs) {
		t.Errorf("legacy inputs:\n got %v\nwant %v", legacy.Inputs, wantInputs)
	}
	if flat.DependsOn != nil || flat.Command != "eslint ./src" {
		t.Errorf("flat: command %q, dependsOn %v; want eslint ./src and none", flat.Command, flat.DependsOn)
	}
}
