package plugins_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

var vxBin string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite{
		TempPrefix: "vx-plugins-test-",
		Binaries:   []harness.Binary{{Dest: &vxBin, Path: "vx", Pkg: "./cmd/vx", Given: "VX_TEST_BIN"}},
	}.Run(m))
}

func here() string { return filepath.Join(harness.ModuleRoot(), "tests", "plugins") }

// toolsDir is node/node_modules, where .ci/run installs Vitest and ESLint.
func toolsDir(t *testing.T) string {
	t.Helper()
	reach.Tool(t, "node", "Vitest, ESLint and the plugins run on Node")
	dir := filepath.Join(here(), "node", "node_modules")
	for _, bin := range []string{"vitest", "eslint"} {
		if _, err := os.Stat(filepath.Join(dir, ".bin", bin)); err != nil {
			reach.Missing(t, bin+" is not installed: run (cd tests/plugins/node && npm ci)")
		}
	}
	return dir
}

// twin lays out testdata/ws with the vx.workspace.json of testdata/<kind>
// ("plugins": declares both plugins; "hand": the same tasks written by
// hand) in a fresh git repository. Its node_modules is what npm would
// install there: the pinned tools of node/ (linked), the workspace package
// lib, and for "plugins" the two plugin packages (copied from npm/).
func twin(t *testing.T, kind, tools string) string {
	t.Helper()
	root := harness.TempRoot(t)
	harness.CopyTree(t, filepath.Join(here(), "testdata", "ws"), root)
	harness.CopyTree(t, filepath.Join(here(), "testdata", kind), root)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(here(), "node", f))
		if err != nil {
			t.Fatal(err)
		}
		harness.WriteFile(t, filepath.Join(root, f), string(b))
	}
	nm := filepath.Join(root, "node_modules")
	entries, err := os.ReadDir(tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.MkdirAll(nm, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(tools, e.Name()), filepath.Join(nm, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join("..", "packages", "lib"), filepath.Join(nm, "lib")); err != nil {
		t.Fatal(err)
	}
	if kind == "plugins" {
		for _, p := range []string{"vx-plugin-vitest", "vx-plugin-eslint"} {
			harness.CopyTree(t, filepath.Join(harness.ModuleRoot(), "npm", p), filepath.Join(nm, "@vzn", p))
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@vx.invalid", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

// outcome is what a run did with one task: "ran" (a cache miss that
// passed), "hit" or "failed", and its cache key.
type outcome struct {
	what, key string
}

// run runs test and lint with vx in root and returns each task's outcome
// and vx's exit code.
func run(t *testing.T, root string, env []string) (map[string]outcome, int) {
	t.Helper()
	return summary(t, harness.Run(t, root, env, vxBin, "run", "test", "lint", "--continue", "--format", "json"))
}

// summary reads each task's outcome and vx's exit code from the JSON
// summary of a vx run.
func summary(t *testing.T, r harness.Result) (map[string]outcome, int) {
	t.Helper()
	var sum struct {
		Tasks []struct {
			TaskID, Status, Cache, Key string
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatalf("reading the run summary: %v\n%s", err, r)
	}
	out := map[string]outcome{}
	for _, task := range sum.Tasks {
		what := task.Status
		switch {
		case task.Cache == "hit":
			what = "hit"
		case task.Status == "passed":
			what = "ran"
		}
		out[task.TaskID] = outcome{what, task.Key}
	}
	return out, r.Code
}

// replace edits the file rel of root, which must hold old.
func replace(t *testing.T, root, rel, old, new string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), old, new, 1)
	if s == string(b) {
		t.Fatalf("%s has no %q to edit", rel, old)
	}
	harness.WriteFile(t, path, s)
}

// TestPluginsMatchHandWritten is issue 31's done-when: a workspace that
// declares @vzn/vx-plugin-vitest and @vzn/vx-plugin-eslint and writes no
// test or lint task runs, caches and re-runs exactly as its twin with
// those tasks written by hand, against Vitest and ESLint from npm, across
// a series of edits: per step both runs execute, take from the cache and
// fail the same tasks with the same cache keys and exit code, and that is
// what a user expects of each edit. lib's config enables coverage: its
// report is there after every run, restored by a hit after it was deleted.
func TestPluginsMatchHandWritten(t *testing.T) {
	tools := toolsDir(t)
	env := harness.Env("VX_LOG", "CI")
	roots := []string{twin(t, "plugins", tools), twin(t, "hand", tools)}
	checkSeams(t, roots[0], env, map[string]string{
		"app#test": "vitest packages/app/vite.config.mjs", "app#lint": "eslint packages/app/eslint.config.mjs",
		"lib#test": "vitest packages/lib/vitest.config.mjs", "lib#lint": "eslint eslint.config.mjs",
	})
	checkSeams(t, roots[1], env, map[string]string{"app#test": "", "app#lint": "", "lib#test": "", "lib#lint": ""})
	all := func(what string) map[string]string {
		return map[string]string{"app#test": what, "app#lint": what, "lib#test": what, "lib#lint": what}
	}
	// but returns all(what) with the given tasks set otherwise.
	but := func(what string, set map[string]string) map[string]string {
		m := all(what)
		for k, v := range set {
			m[k] = v
		}
		return m
	}
	for _, step := range []struct {
		name string
		edit func(root string)
		want map[string]string
		code int
	}{
		{"cold", nil, all("ran"), 0},
		{"nothing changed", nil, all("hit"), 0},
		{"coverage deleted (a hit restores it)", func(r string) {
			if err := os.RemoveAll(filepath.Join(r, "packages", "lib", "coverage")); err != nil {
				t.Fatal(err)
			}
		}, all("hit"), 0},
		{"a dependency's source", func(r string) { replace(t, r, "packages/lib/src/index.js", "a + b", "b + a") }, all("ran"), 0},
		{"a test file (lint lints it)", func(r string) { replace(t, r, "packages/lib/src/index.test.js", "toBe(3)", "toEqual(3)") },
			but("hit", map[string]string{"lib#test": "ran", "lib#lint": "ran"}), 0},
		{"a README", func(r string) { replace(t, r, "packages/lib/README.md", "Adds", "Sums") }, all("hit"), 0},
		{"a vitest.config (lint lints it)", func(r string) {
			replace(t, r, "packages/lib/vitest.config.mjs", "include:", "passWithNoTests: false, include:")
		},
			but("hit", map[string]string{"lib#test": "ran", "lib#lint": "ran"}), 0},
		{"a vite.config with a test block", func(r string) {
			replace(t, r, "packages/app/vite.config.mjs", "outDir: 'dist'", "outDir: 'dist', emptyOutDir: true")
		},
			but("hit", map[string]string{"app#test": "ran", "app#lint": "ran"}), 0},
		{"the root eslint config", func(r string) {
			replace(t, r, "eslint.config.mjs", "'no-undef': 'off'", "'no-undef': 'off', 'no-debugger': 'error'")
		},
			but("hit", map[string]string{"app#lint": "ran", "lib#lint": "ran"}), 0},
		{"a project's eslint config", func(r string) {
			replace(t, r, "packages/app/eslint.config.mjs", "'dist/**'", "'dist/**', 'coverage/**'")
		},
			but("hit", map[string]string{"app#lint": "ran"}), 0},
		{"the locked vitest version", func(r string) {
			replace(t, r, "package-lock.json", "\"node_modules/vitest\": {\n      \"version\": \"3.2.4\",\n      \"integrity\": \"sha512-L",
				"\"node_modules/vitest\": {\n      \"version\": \"3.2.5\",\n      \"integrity\": \"sha512-M")
		}, but("hit", map[string]string{"app#test": "ran", "lib#test": "ran"}), 0},
		{"a failing test", func(r string) { replace(t, r, "packages/lib/src/index.js", "b + a", "b - a") },
			map[string]string{"lib#test": "failed", "app#test": "failed", "lib#lint": "ran", "app#lint": "ran"}, 1},
		{"the failure fixed", func(r string) { replace(t, r, "packages/lib/src/index.js", "b - a", "b + a") }, all("hit"), 0},
		{"a lint error", func(r string) {
			replace(t, r, "packages/app/src/main.js", "export const three", "const unused = 1;\nexport const three")
		},
			but("hit", map[string]string{"app#test": "ran", "app#lint": "failed"}), 1},
	} {
		var got [2]map[string]outcome
		var codes [2]int
		for i, root := range roots {
			if step.edit != nil {
				step.edit(root)
			}
			got[i], codes[i] = run(t, root, env)
		}
		if !reflect.DeepEqual(got[0], got[1]) || codes[0] != codes[1] {
			t.Errorf("%s: with the plugins %v (exit %d), written by hand %v (exit %d)", step.name, describe(got[0]), codes[0], describe(got[1]), codes[1])
		}
		if w := whats(got[0]); !reflect.DeepEqual(w, step.want) || codes[0] != step.code {
			t.Errorf("%s: the runs did %v (exit %d), want %v (exit %d)", step.name, w, codes[0], step.want, step.code)
		}
		for _, root := range roots {
			// Vitest writes it on every run, vx restores it on every hit.
			if _, err := os.Stat(filepath.Join(root, "packages", "lib", "coverage", "coverage-summary.json")); err != nil && got[0]["lib#test"].what != "failed" {
				t.Errorf("%s: lib's coverage report is not there after the run: %v", step.name, err)
			}
		}
	}
}

// checkSeams: vx show marks each test and lint task of root with the
// plugin and file it was inferred from ("plugin file"), "" for a task
// written by hand.
func checkSeams(t *testing.T, root string, env []string, want map[string]string) {
	t.Helper()
	r := harness.Run(t, root, env, vxBin, "show", "--format", "json")
	var show struct {
		Projects []struct {
			Tasks []struct {
				TaskID, Task string
				InferredFrom *struct{ Plugin, File string }
			}
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &show); err != nil {
		t.Fatalf("vx show --format json: %v\n%s", err, r)
	}
	got := map[string]string{}
	for _, p := range show.Projects {
		for _, task := range p.Tasks {
			if task.Task != "test" && task.Task != "lint" {
				continue
			}
			got[task.TaskID] = ""
			if f := task.InferredFrom; f != nil {
				got[task.TaskID] = f.Plugin + " " + f.File
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("vx show in %s: test and lint inferred from %v, want %v", filepath.Base(root), got, want)
	}
}

func whats(m map[string]outcome) map[string]string {
	out := map[string]string{}
	for id, o := range m {
		out[id] = o.what
	}
	return out
}

// describe lists a run's outcomes in task order, keys shortened.
func describe(m map[string]outcome) string {
	var ids []string
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(id + "=" + m[id].what + "@" + m[id].key[:min(12, len(m[id].key))] + " ")
	}
	return b.String()
}
