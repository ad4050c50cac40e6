// Package plugins_test checks vx's own npm plugins, @vzn/vx-plugin-vitest
// and @vzn/vx-plugin-eslint (npm/vx-plugin-*): their answers to protocol
// requests on workspaces laid out for each case, and (equivalence_test.go)
// a workspace that declares them running, caching and re-running exactly as
// its twin with the same tasks written by hand, against Vitest and ESLint
// from npm (pinned in node/, installed by .ci/run).
package plugins_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

// entry is the entry file of the plugin in npm/vx-plugin-<name>.
func entry(name string) string {
	return filepath.Join(harness.ModuleRoot(), "npm", "vx-plugin-"+name, "plugin.mjs")
}

// answer is one plugin process's outcome.
type answer struct {
	stdout, stderr string
	code           int
}

// ask runs the plugin as vx does (node <entry>, cwd the workspace root)
// with one request on stdin.
func ask(t *testing.T, plugin, root string, req any) answer {
	t.Helper()
	reach.Tool(t, "node", "the plugins are Node scripts")
	var in []byte
	if s, ok := req.(string); ok {
		in = []byte(s)
	} else {
		var err error
		if in, err = json.Marshal(req); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("node", entry(plugin))
	cmd.Dir, cmd.Stdin = root, bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	a := answer{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		a.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running the %s plugin: %v", plugin, err)
	}
	return a
}

// task is an inferred task as the protocol carries it.
type task struct {
	Project   string   `json:"project"`
	Name      string   `json:"name"`
	File      string   `json:"file"`
	Command   string   `json:"command"`
	Inputs    []string `json:"inputs"`
	Outputs   []string `json:"outputs"`
	DependsOn []string `json:"dependsOn"`
	Env       []string `json:"env"`
	Cache     *bool    `json:"cache"`
}

type project struct {
	Name string `json:"name"`
	Root string `json:"root"`
}

// tasks asks for the plugin's tasks with files and projects, and decodes
// the answer strictly (only the protocol's fields).
func tasks(t *testing.T, plugin, root string, options any, files []string, projects []project) []task {
	t.Helper()
	a := ask(t, plugin, root, map[string]any{"protocol": 1, "stage": "tasks", "options": options, "files": files, "projects": projects})
	if a.code != 0 {
		t.Fatalf("the %s plugin failed (exit %d): %s", plugin, a.code, a.stderr)
	}
	var out struct {
		Protocol int    `json:"protocol"`
		Tasks    []task `json:"tasks"`
	}
	dec := json.NewDecoder(strings.NewReader(a.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil || out.Protocol != 1 {
		t.Fatalf("the %s plugin's answer (protocol %d): %v\n%s", plugin, out.Protocol, err, a.stdout)
	}
	return out.Tasks
}

// layout writes files (slash paths) under a fresh directory.
func layout(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), text)
	}
	return root
}

// layoutConfigs lays files out as layout does and returns the root with
// the files whose name holds ".config.", which vx would send the plugins.
func layoutConfigs(t *testing.T, files map[string]string) (string, []string) {
	t.Helper()
	var matched []string
	for f := range files {
		if strings.Contains(f, ".config.") {
			matched = append(matched, f)
		}
	}
	return layout(t, files), matched
}

func yes() *bool { b := true; return &b }

// Inputs every vitest task has before its config's own.
var vitestBase = []string{"**", "!**/*.{md,mdx}", "!**/eslint.config.*", "^**", "^!**/*.{md,mdx}", "^!**/*.{test,spec}.*", "^!**/{eslint,vite,vitest}.config.*"}

// TestVitestTasks: a test task for each project whose own directory holds
// the config Vitest loads there (vitest.config before vite.config, a
// vite.config only with a test block), with the files and packages the
// config imports among its inputs and the coverage directory as its output
// only when coverage is enabled; none for a vite.config without a test
// block (one in a comment or a string does not count) or a config in a
// subdirectory.
func TestVitestTasks(t *testing.T) {
	files := map[string]string{
		"vitest.shared.ts": "import react from '@vitejs/plugin-react';\nexport const shared = { plugins: [react()] };\n",
		"packages/a/vitest.config.ts": "import { defineConfig } from 'vitest/config';\nimport { shared } from '../../vitest.shared';\n" +
			"export default defineConfig({ ...shared, test: { include: ['src/**/*.test.ts'] } });\n",
		"packages/b/vite.config.ts": "import { defineConfig } from 'vite';\n// the report goes to cov/\nexport default defineConfig({\n  test: {\n" +
			"    coverage: { enabled: true, provider: 'istanbul', reportsDirectory: './cov', exclude: [{ a: 1 }] },\n  },\n});\n",
		"packages/c/vite.config.mjs":      "// test: {}\nexport default { build: { outDir: 'dist' }, define: { x: 'test: 1' } };\n",
		"packages/d/src/vitest.config.ts": "export default {};\n",
		"packages/e/vitest.config.mts":    "export default { test: { coverage: { reportsDirectory: 'coverage' } } };\n",
		"packages/e/vite.config.ts":       "export default { test: {} };\n",
		"packages/f/vite.config.js":       "import base from './base.mjs';\nexport default { ...base };\n",
		"packages/f/base.mjs":             "export default { test: { environment: 'node' } };\n",
	}
	root, matched := layoutConfigs(t, files)
	projects := []project{{"a", "packages/a"}, {"b", "packages/b"}, {"c", "packages/c"}, {"d", "packages/d"}, {"e", "packages/e"}, {"f", "packages/f"}}
	got := tasks(t, "vitest", root, nil, matched, projects)
	with := func(extra ...string) []string { return append(append([]string{}, vitestBase...), extra...) }
	want := []task{
		{Project: "a", Name: "test", File: "packages/a/vitest.config.ts", Command: "vitest run",
			Inputs: with("/vitest.shared.ts", "/tsconfig*.json", "npm:vitest", "npm:@vitejs/plugin-react"), Env: []string{"CI"}, Cache: yes()},
		{Project: "b", Name: "test", File: "packages/b/vite.config.ts", Command: "vitest run",
			Inputs: with("/tsconfig*.json", "npm:vitest", "npm:vite", "npm:@vitest/coverage-istanbul"), Outputs: []string{"cov/**"}, Env: []string{"CI"}, Cache: yes()},
		{Project: "e", Name: "test", File: "packages/e/vitest.config.mts", Command: "vitest run", Inputs: with("/tsconfig*.json", "npm:vitest"), Env: []string{"CI"}, Cache: yes()},
		{Project: "f", Name: "test", File: "packages/f/vite.config.js", Command: "vitest run", Inputs: with("/tsconfig*.json", "npm:vitest"), Env: []string{"CI"}, Cache: yes()},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("vitest tasks:\n got %+v\nwant %+v", got, want)
	}
	// Options rename the task and add inputs and env.
	got = tasks(t, "vitest", root, map[string]any{"taskName": "unit", "inputs": []string{"/fixtures/**"}, "env": []string{"API_URL"}}, []string{"packages/e/vitest.config.mts"}, projects)
	if len(got) != 1 || got[0].Name != "unit" || got[0].Inputs[len(got[0].Inputs)-1] != "/fixtures/**" || !reflect.DeepEqual(got[0].Env, []string{"CI", "API_URL"}) {
		t.Errorf("vitest tasks with options: %+v", got)
	}
}

var eslintBase = []string{"**", "!**/*.{md,mdx}", "^**", "^!**/*.{md,mdx}", "^!**/*.{test,spec}.*", "^!**/{eslint,vite,vitest}.config.*"}

// TestEslintTasks: a lint task for each project under the flat config
// `eslint .` loads in its directory (its own, else the nearest parent's
// up to the root, eslint.config.js before .mjs), with every config file
// outside the project that it imports and the packages they import among
// its inputs; the tsconfig files only for typed linting; none for a
// project with no file ESLint lints (a nested project's files are not
// its own) or a workspace with no config above it.
func TestEslintTasks(t *testing.T) {
	files := map[string]string{
		"eslint.config.mjs":            "import js from '@eslint/js';\nimport local from './tools/rules.mjs';\nexport default [js.configs.recommended, local];\n",
		"tools/rules.mjs":              "import globals from 'globals';\nexport default { languageOptions: { globals: globals.node } };\n",
		"packages/a/eslint.config.js":  "import base from '../../eslint.config.mjs';\nexport default [...base];\n",
		"packages/a/eslint.config.mjs": "export default [];\n",
		"packages/a/src/index.ts":      "export const a = 1;\n",
		"packages/b/index.js":          "module.exports = 1;\n",
		"packages/docs/README.md":      "# docs\n",
		"packages/docs/inner/x.md":     "# x\n",
		"packages/outer/README.md":     "# outer\n",
		"packages/outer/inner/i.js":    "export {};\n",
		"packages/t/eslint.config.mjs": "import tseslint from 'typescript-eslint';\nexport default tseslint.config({ languageOptions: { parserOptions: { projectService: true } } });\n",
		"packages/t/src/x.ts":          "export const x = 1;\n",
	}
	root := layout(t, files)
	matched := []string{"eslint.config.mjs", "packages/a/eslint.config.js", "packages/a/eslint.config.mjs", "packages/t/eslint.config.mjs"}
	projects := []project{{"a", "packages/a"}, {"b", "packages/b"}, {"docs", "packages/docs"}, {"outer", "packages/outer"}, {"inner", "packages/outer/inner"}, {"t", "packages/t"}}
	got := tasks(t, "eslint", root, nil, matched, projects)
	with := func(extra ...string) []string { return append(append([]string{}, eslintBase...), extra...) }
	rootInputs := with("/eslint.config.mjs", "/tools/rules.mjs", "npm:eslint", "npm:@eslint/js", "npm:globals")
	want := []task{
		{Project: "a", Name: "lint", File: "packages/a/eslint.config.js", Command: "eslint .", Inputs: rootInputs, Cache: yes()},
		{Project: "b", Name: "lint", File: "eslint.config.mjs", Command: "eslint .", Inputs: rootInputs, Cache: yes()},
		{Project: "inner", Name: "lint", File: "eslint.config.mjs", Command: "eslint .", Inputs: rootInputs, Cache: yes()},
		{Project: "t", Name: "lint", File: "packages/t/eslint.config.mjs", Command: "eslint .", Inputs: with("/tsconfig*.json", "npm:eslint", "npm:typescript-eslint"), Cache: yes()},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("eslint tasks:\n got %+v\nwant %+v", got, want)
	}
	if got := tasks(t, "eslint", root, nil, []string{"packages/t/eslint.config.mjs"}, []project{{"b", "packages/b"}}); len(got) != 0 {
		t.Errorf("a project with no config at or above it got %+v", got)
	}
}

type describeAnswer struct {
	Protocol int      `json:"protocol"`
	Name     string   `json:"name"`
	Version  string   `json:"version"`
	Stages   []string `json:"stages"`
	Globs    []string `json:"globs"`
}

// TestDescribe: each plugin names itself, its package's version, the tasks
// stage and globs that match every config name it reads (the eslint
// plugin's .eslintrc* too: the legacy configs a script turns to), and no
// package.json: the projects' scripts come in the tasks request.
func TestDescribe(t *testing.T) {
	for plugin, globs := range map[string][]string{
		"vitest": {"**/{vitest,vite}.config.{ts,mts,cts,js,mjs,cjs}"},
		"eslint": {"**/eslint.config.{js,mjs,cjs,ts,mts,cts}", "**/.eslintrc*"},
	} {
		a := ask(t, plugin, t.TempDir(), map[string]any{"protocol": 1, "stage": "describe", "options": map[string]any{}})
		var d describeAnswer
		dec := json.NewDecoder(strings.NewReader(a.stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil || a.code != 0 {
			t.Fatalf("%s describe: exit %d, %v\n%s%s", plugin, a.code, err, a.stdout, a.stderr)
		}
		var pkg struct{ Version string }
		b, err := os.ReadFile(filepath.Join(filepath.Dir(entry(plugin)), "package.json"))
		if err != nil || json.Unmarshal(b, &pkg) != nil {
			t.Fatal(err)
		}
		want := describeAnswer{1, plugin, pkg.Version, []string{"tasks"}, globs}
		if !reflect.DeepEqual(d, want) {
			t.Errorf("%s describe: got %+v, want %+v", plugin, d, want)
		}
	}
}

// TestRefusals: a request the plugin cannot answer fails it (non-zero exit,
// nothing on stdout) with the reason on stderr.
func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name, req, says string
	}{
		{"not JSON", "{", "not JSON"},
		{"not an object", "[1]", "not a JSON object"},
		{"another protocol", `{"protocol": 2, "stage": "describe"}`, "protocol 2 is not supported"},
		{"unknown stage", `{"protocol": 1, "stage": "command"}`, `stage "command"`},
		{"unknown option", `{"protocol": 1, "stage": "describe", "options": {"taskname": "x"}}`, `unknown option "taskname"`},
		{"option of the wrong type", `{"protocol": 1, "stage": "tasks", "options": {"inputs": "src/**"}}`, "option inputs must be an array"},
		{"options not an object", `{"protocol": 1, "stage": "tasks", "options": [1]}`, "options must be a JSON object"},
		{"path outside", `{"protocol": 1, "stage": "tasks", "files": ["../x/vitest.config.ts"]}`, "files must be"},
		{"project not an object", `{"protocol": 1, "stage": "tasks", "projects": ["a"]}`, "projects must be"},
	} {
		for _, plugin := range []string{"vitest", "eslint"} {
			a := ask(t, plugin, t.TempDir(), c.req)
			if a.code == 0 || a.stdout != "" || !strings.Contains(a.stderr, c.says) {
				t.Errorf("%s, %s plugin: exit %d, stdout %q, stderr %q; want a failure saying %q", c.name, plugin, a.code, a.stdout, a.stderr, c.says)
			}
		}
	}
}

// TestKitIsShared: lib/kit.mjs is one file kept in both packages (each must
// stand alone on npm): the two copies are the same.
func TestKitIsShared(t *testing.T) {
	a, errA := os.ReadFile(filepath.Join(harness.ModuleRoot(), "npm", "vx-plugin-vitest", "lib", "kit.mjs"))
	b, errB := os.ReadFile(filepath.Join(harness.ModuleRoot(), "npm", "vx-plugin-eslint", "lib", "kit.mjs"))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Errorf("npm/vx-plugin-vitest/lib/kit.mjs and npm/vx-plugin-eslint/lib/kit.mjs differ (%v, %v): copy one over the other", errA, errB)
	}
}
