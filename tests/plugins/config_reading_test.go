package plugins_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// link makes the symbolic link rel (a slash path under root) point at target
// (as written in the link, relative to its directory).
func link(t *testing.T, root, rel, target string) {
	t.Helper()
	abs := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.FromSlash(target), abs); err != nil {
		t.Fatal(err)
	}
}

// inputsOf is the inputs of the task of project in got, or nil.
func inputsOf(got []task, project string) []string {
	for _, tk := range got {
		if tk.Project == project {
			return tk.Inputs
		}
	}
	return nil
}

// TestConfigThroughALinkIsAnInput: a project config that imports the root
// config through a symbolic link inside the project (TanStack/query's
// ./root.eslint.config.js -> ../../eslint.config.js) has the root config,
// and what the root config imports relative to where it really is, among
// its inputs: vx hashes a link by the path it holds, so "**" alone would
// keep the key when the root config changes. A link whose target is inside
// the project adds nothing ("**" has the target).
func TestConfigThroughALinkIsAnInput(t *testing.T) {
	root := layout(t, map[string]string{
		"eslint.config.js":            "import rules from './tools/rules.mjs';\nexport default [rules];\n",
		"tools/rules.mjs":             "import globals from 'globals';\nexport default { languageOptions: { globals: globals.node } };\n",
		"packages/a/eslint.config.js": "import rootConfig from './root.eslint.config.js';\nexport default [...rootConfig];\n",
		"packages/a/index.js":         "export const a = 1;\n",
		"packages/b/eslint.config.js": "import local from './cfg/local.mjs';\nexport default [local];\n",
		"packages/b/real/local.mjs":   "export default {};\n",
		"packages/b/index.js":         "export const b = 1;\n",
		"vitest.shared.ts":            "import react from '@vitejs/plugin-react';\nexport const shared = { plugins: [react()] };\n",
		"packages/c/vitest.config.ts": "import { shared } from './shared';\nexport default { ...shared, test: {} };\n",
	})
	link(t, root, "packages/a/root.eslint.config.js", "../../eslint.config.js")
	link(t, root, "packages/b/cfg", "real")
	link(t, root, "packages/c/shared.ts", "../../vitest.shared.ts")
	projects := []project{{"a", "packages/a"}, {"b", "packages/b"}, {"c", "packages/c"}}
	got := tasks(t, "eslint", root, nil, []string{"eslint.config.js", "packages/a/eslint.config.js", "packages/b/eslint.config.js"}, projects)
	wantA := append(append([]string{}, eslintBase...), "/eslint.config.js", "/tools/rules.mjs", "npm:eslint", "npm:globals")
	if in := inputsOf(got, "a"); !reflect.DeepEqual(in, wantA) {
		t.Errorf("lint inputs of a project importing the root config through a link:\n got %q\nwant %q", in, wantA)
	}
	wantB := append(append([]string{}, eslintBase...), "npm:eslint")
	if in := inputsOf(got, "b"); !reflect.DeepEqual(in, wantB) {
		t.Errorf("lint inputs of a project importing through a link inside it:\n got %q\nwant %q", in, wantB)
	}
	got = tasks(t, "vitest", root, nil, []string{"packages/c/vitest.config.ts"}, projects)
	wantC := append(append([]string{}, vitestBase...), "/vitest.shared.ts", "/tsconfig*.json", "npm:vitest", "npm:@vitejs/plugin-react")
	if in := inputsOf(got, "c"); !reflect.DeepEqual(in, wantC) {
		t.Errorf("test inputs of a project importing a shared config through a link:\n got %q\nwant %q", in, wantC)
	}
}

// TestImportedJSONIsAFileNotCode: a config that imports a JSON file (a
// vite.config importing ./package.json) has that file as an input but no
// package read out of it ("import": "./dist/index.js" in its exports is
// not an import of a package named ": "); an import-like key in a string of
// JavaScript, or a specifier that is no npm package name, gives no npm:
// input either.
func TestImportedJSONIsAFileNotCode(t *testing.T) {
	root := layout(t, map[string]string{
		"packages/a/package.json": `{"name": "a", "exports": {".": {"import": "./dist/index.js", "require": "./dist/index.cjs"}}, "scripts": {"test": "vitest"}}` + "\n",
		"packages/a/vite.config.ts": "import { defineConfig } from 'vite';\nimport pkg from './package.json';\nimport shared from '../../shared.json' with { type: 'json' };\n" +
			"export default defineConfig({ test: { name: pkg.name } });\n",
		"shared.json": `{"import": "./x.js", "from": "y"}` + "\n",
		"packages/b/vitest.config.mjs": "const exportsMap = { \"import\": \"./dist/index.js\", 'require': './dist/index.cjs' };\n" +
			"const load = () => import(' spaced'), other = () => require('Bad Name/x');\nexport default { test: {} };\n",
	})
	projects := []project{{"a", "packages/a"}, {"b", "packages/b"}}
	got := tasks(t, "vitest", root, nil, []string{"packages/a/vite.config.ts", "packages/b/vitest.config.mjs"}, projects)
	want := map[string][]string{
		"a": append(append([]string{}, vitestBase...), "/shared.json", "/tsconfig*.json", "npm:vitest", "npm:vite"),
		"b": append(append([]string{}, vitestBase...), "/tsconfig*.json", "npm:vitest"),
	}
	for p, w := range want {
		if in := inputsOf(got, p); !reflect.DeepEqual(in, w) {
			t.Errorf("test inputs of %s:\n got %q\nwant %q", p, in, w)
		}
	}
}

// TestRegexLiteralsAndDivision: a regular expression literal holding a
// quote, "/*", "//" or a brace (TanStack/query's angular-query-experimental
// vite.config.ts) hides neither the test block after it nor a string, and
// a key inside one is no key; a "/" that divides is not taken for the start
// of one, wherever it follows an operand (a name, a number, ")" or "]").
func TestRegexLiteralsAndDivision(t *testing.T) {
	const tail = "export default { test: { coverage: { enabled: true, reportsDirectory: './cov' } } };\n"
	configs := map[string]string{
		"quote":      "const re = /from\\s['\"]x/g;\n" + tail,
		"slashstar":  "const re = /[\\w/*]+/g;\n" + tail,
		"classslash": "const s = x.replace(/[/'\"{]/g, '');\n" + tail,
		"slashslash": "const u = [/https?:\\/\\//, /a'/];\n" + tail,
		"return":     "function f(s) { return /['\"]/.test(s) }\n" + tail,
		"tanstack": "content = content.replace(\n    /(im|ex)port\\s[\\w{}/*\\s,]+from\\s['\"](?:\\.\\.?\\/)+?[^.'\"]+(?=['\"];?)/gm,\n    `$&.${extension}`,\n  )\n" +
			"content = content.replace(\n    /import\\(['\"](?:\\.\\.?\\/)+?[^.'\"]+(?=['\"];?)/gm,\n    `$&.${extension}`,\n  )\n" + tail,
		"divname":   "export default { a: x / 2, b: \"/\", test: { coverage: { enabled: true, reportsDirectory: './cov' } } };\n",
		"divnumber": "export default { a: 10 / 2 / 5, b: '/', test: { coverage: { enabled: true, reportsDirectory: './cov' } } };\n",
		"divparen":  "export default { a: f(x) / 2, b: \"/\", test: { coverage: { enabled: true, reportsDirectory: './cov' } } };\n",
		"divindex":  "export default { a: arr[0] / 2, b: \"/\", test: { coverage: { enabled: true, reportsDirectory: './cov' } } };\n",
		"divline":   "const r = width\n  / height / 2, s = \"'\";\n" + tail,
		"keyinre":   "const re = /test: {/;\nexport default { build: {} };\n",
	}
	files := map[string]string{}
	var matched []string
	var projects []project
	for name, text := range configs {
		rel := "packages/" + name + "/vite.config.ts"
		files[rel] = text
		matched = append(matched, rel)
		projects = append(projects, project{name, "packages/" + name})
	}
	got := tasks(t, "vitest", layout(t, files), nil, matched, projects)
	var with []string
	for _, tk := range got {
		with = append(with, tk.Project)
		if !reflect.DeepEqual(tk.Outputs, []string{"cov/**"}) {
			t.Errorf("%s (%q): outputs %q, want the coverage directory [cov/**]", tk.Project, configs[tk.Project], tk.Outputs)
		}
	}
	sort.Strings(with)
	for name := range configs {
		if has := slices.Contains(with, name); has != (name != "keyinre") {
			t.Errorf("%s: a test task is %v, want %v; config:\n%s", name, has, !has, configs[name])
		}
	}
	if t.Failed() {
		t.Logf("projects with a test task: %s", strings.Join(with, " "))
	}
}
