// Package nxparity_test migrates a real Nx workspace, whose test targets
// are inferred by Nx's own plugins, with the real vx binary, and checks
// that after each edit vx re-runs exactly the test targets Nx re-runs.
// Nx, its plugins and vitest are pinned in fixture/ (installed there by
// .ci/run); the workspace is testdata/ws.
package nxparity_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

var vxBin string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite{
		TempPrefix: "vx-nxparity-test-",
		Binaries:   []harness.Binary{{Dest: &vxBin, Path: "vx", Pkg: "./cmd/vx", Given: "VX_TEST_BIN"}},
	}.Run(m))
}

func here() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// workspace lays out testdata/ws with the fixture's package.json, lockfile
// and node_modules in a fresh git repository; withVxPlugins, node_modules
// also holds vx's plugins @vzn/vx-plugin-vitest and @vzn/vx-plugin-eslint
// (npm/ of this repository), as after npm add -D of the two.
func workspace(t *testing.T, withVxPlugins bool) string {
	t.Helper()
	fixture := filepath.Join(here(), "fixture")
	if _, err := os.Stat(filepath.Join(fixture, "node_modules", ".bin", "nx")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Nx is not installed in %s (%v): .ci/run installs it", fixture, err)
		}
		t.Skipf("Nx is not installed (%v): run (cd tests/nxparity/fixture && npm ci)", err)
	}
	root := harness.TempRoot(t)
	harness.CopyTree(t, filepath.Join(here(), "testdata", "ws"), root)
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		harness.WriteFile(t, filepath.Join(root, f), string(b))
	}
	if withVxPlugins {
		linkModules(t, filepath.Join(fixture, "node_modules"), filepath.Join(root, "node_modules"))
		for _, p := range []string{"vx-plugin-vitest", "vx-plugin-eslint"} {
			harness.CopyTree(t, filepath.Join(harness.ModuleRoot(), "npm", p), filepath.Join(root, "node_modules", "@vzn", p))
		}
	} else if err := os.Symlink(filepath.Join(fixture, "node_modules"), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@vx.invalid", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

// linkModules makes dst a node_modules directory whose every entry links
// to the one of src, so that packages can be added to dst alone.
func linkModules(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// env runs Nx without its daemon or cloud, caching in a temp dir.
func env(t *testing.T) []string {
	return append(harness.Env("CI", "VX_LOG", "NX_DAEMON", "NX_NO_CLOUD", "NX_CACHE_DIRECTORY", "NX_SKIP_NX_CACHE"),
		"NX_DAEMON=false", "NX_NO_CLOUD=true", "NX_TUI=false", "NX_CACHE_DIRECTORY="+filepath.Join(t.TempDir(), "nx-cache"))
}

// nxReran runs every test target with Nx and lists those it ran rather
// than read from its cache.
func nxReran(t *testing.T, root string, env []string) []string {
	t.Helper()
	r := harness.Run(t, root, env, filepath.Join(root, "node_modules", ".bin", "nx"), "run-many", "-t", "test", "--outputStyle=static")
	if r.Code != 0 {
		t.Fatalf("%s", r)
	}
	var ran []string
	for _, line := range strings.Split(r.Stdout, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "> nx run ")
		if !ok {
			continue
		}
		id, flags, _ := strings.Cut(rest, " ")
		if !strings.Contains(flags, "cache") {
			ran = append(ran, id)
		}
	}
	sort.Strings(ran)
	return ran
}

// vxReran runs the test task with vx and lists those it ran (cache
// misses), named as Nx names them (project:target).
func vxReran(t *testing.T, root string, env []string) []string {
	t.Helper()
	r := harness.Run(t, root, env, vxBin, "run", "test", "--format", "json")
	if r.Code != 0 {
		t.Fatalf("%s", r)
	}
	var sum struct {
		Tasks []struct {
			TaskID, Cache string
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatalf("reading the run summary: %v\n%s", err, r)
	}
	var ran []string
	for _, task := range sum.Tasks {
		if task.Cache != "hit" {
			ran = append(ran, strings.Replace(task.TaskID, "#", ":", 1))
		}
	}
	sort.Strings(ran)
	return ran
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), old, new, 1)
	if s == string(b) {
		t.Fatalf("%s has no %q to edit", path, old)
	}
	harness.WriteFile(t, path, s)
}

// TestNxRerunsMatch: the same edits, one after another, make Nx and vx
// re-run the same test targets: a shared library's source re-runs its
// dependents' tests, its spec file only its own, a root file only lint
// names none, a root file named in sharedGlobals and the locked vitest
// version every one, another locked package none. It holds for the test
// tasks vx init translates from Nx's graph, and for those vx's plugin
// @vzn/vx-plugin-vitest infers where vx init declared it instead (it was
// installed).
func TestNxRerunsMatch(t *testing.T) {
	t.Run("translated targets", func(t *testing.T) {
		root := workspace(t, false)
		env := env(t)
		checkProposed(t, root, env)
		if r := harness.Run(t, root, env, vxBin, "init"); r.Code != 0 {
			t.Fatalf("%s", r)
		}
		checkReruns(t, root, env)
	})
	t.Run("vx plugins", func(t *testing.T) {
		root := workspace(t, true)
		env := env(t)
		if r := harness.Run(t, root, env, vxBin, "init"); r.Code != 0 {
			t.Fatalf("%s", r)
		}
		checkDeclared(t, root, env)
		checkReruns(t, root, env)
	})
}

// checkProposed: vx init, the vx plugins not installed, proposes each one
// where it replaces an Nx plugin of nx.json (a todo at its "plugins").
func checkProposed(t *testing.T, root string, env []string) {
	t.Helper()
	r := harness.Run(t, root, env, vxBin, "init", "--dry", "--format", "json")
	var plan struct {
		Todos []struct{ File, Item, Reason string }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &plan); err != nil {
		t.Fatalf("vx init --dry --format json: %v\n%s", err, r)
	}
	for _, want := range []string{"@nx/vite/plugin infers \"test\" targets; vx's plugin @vzn/vx-plugin-vitest", "@nx/eslint/plugin infers \"lint\" targets; vx's plugin @vzn/vx-plugin-eslint"} {
		found := false
		for _, td := range plan.Todos {
			found = found || (td.File == "nx.json" && td.Item == "plugins" && strings.HasPrefix(td.Reason, want) && strings.Contains(td.Reason, "npm add -D @vzn/"))
		}
		if !found {
			t.Errorf("vx init proposes no %q: todos %+v", want, plan.Todos)
		}
	}
}

// checkDeclared: vx init, the vx plugins installed, declares them in
// vx.workspace.json and writes no test or lint task in vx.project.json;
// vx show lists every project's test and lint as inferred by them.
func checkDeclared(t *testing.T, root string, env []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "vx.workspace.json"))
	if err != nil || !strings.Contains(string(b), `"plugins": [
    "@vzn/vx-plugin-vitest",
    "@vzn/vx-plugin-eslint"
  ]`) {
		t.Errorf("vx.workspace.json does not declare both plugins (%v):\n%s", err, b)
	}
	r := harness.Run(t, root, env, vxBin, "show", "--format", "json")
	var show struct {
		Projects []struct {
			Name  string
			Dir   string
			Tasks []struct{ Task, Command, CommandSource string }
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &show); err != nil {
		t.Fatalf("vx show --format json: %v\n%s", err, r)
	}
	for _, p := range show.Projects {
		got := map[string]string{}
		for _, task := range p.Tasks {
			if task.Task == "test" || task.Task == "lint" {
				got[task.Task] = task.Command + " (" + task.CommandSource + ")"
			}
		}
		if want := map[string]string{"test": "vitest run (plugin)", "lint": "eslint . (plugin)"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: test and lint %v, want %v", p.Name, got, want)
		}
		pc, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.Dir), "vx.project.json"))
		if strings.Contains(string(pc), `"test"`) || strings.Contains(string(pc), `"lint"`) {
			t.Errorf("%s/vx.project.json still writes test or lint:\n%s", p.Dir, pc)
		}
	}
}

// checkReruns runs the series of edits with Nx and vx in root.
func checkReruns(t *testing.T, root string, env []string) {
	t.Helper()
	all := []string{"app:test", "lib-a:test", "lib-b:test", "lib-c:test"}
	if got := nxReran(t, root, env); !slices.Equal(got, all) {
		t.Fatalf("Nx ran %v cold, want %v", got, all)
	}
	if got := vxReran(t, root, env); !slices.Equal(got, all) {
		t.Fatalf("vx ran %v cold, want %v", got, all)
	}
	at := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	for _, c := range []struct {
		name string
		edit func()
		want []string // what Nx re-runs, checked so that the test means something
	}{
		{"shared lib source", func() { edit(t, at("libs/lib-a/src/index.ts"), "= 1", "= 10") }, []string{"app:test", "lib-a:test", "lib-b:test"}},
		{"shared lib spec", func() { edit(t, at("libs/lib-a/src/index.spec.ts"), "toBeTruthy", "toBeDefined") }, []string{"lib-a:test"}},
		{"shared lib vite config", func() { edit(t, at("libs/lib-b/vite.config.ts"), "test:", "test :") }, []string{"lib-b:test"}},
		{"app source", func() { edit(t, at("apps/app/src/index.ts"), "+ 1", "+ 2") }, []string{"app:test"}},
		{"root eslint config, an input of lint only", func() { edit(t, at("eslint.config.mjs"), "rules: {}", "rules: { }") }, nil},
		{"sharedGlobals root file", func() { edit(t, at("tsconfig.base.json"), `"strict": true`, `"strict": false`) }, all},
		{"locked vitest version", func() {
			// Nx hashes a locked package by its integrity, which a new
			// version changes along with the version.
			edit(t, at("package-lock.json"),
				"\"node_modules/vitest\": {\n      \"version\": \"3.2.4\",\n      \"integrity\": \"sha512-L",
				"\"node_modules/vitest\": {\n      \"version\": \"3.2.5\",\n      \"integrity\": \"sha512-M")
		}, all},
		{"a locked package no test target uses", func() {
			edit(t, at("package-lock.json"),
				"\"node_modules/yargs\": {\n      \"version\": \"17.7.3\",\n      \"integrity\": \"sha512-",
				"\"node_modules/yargs\": {\n      \"version\": \"17.7.4\",\n      \"integrity\": \"sha512-X")
		}, nil},
	} {
		c.edit()
		nx := nxReran(t, root, env)
		vx := vxReran(t, root, env)
		if !slices.Equal(nx, c.want) {
			t.Errorf("%s: Nx re-ran %v, want %v", c.name, nx, c.want)
		}
		if !slices.Equal(vx, nx) {
			t.Errorf("%s: vx re-ran %v, Nx re-ran %v", c.name, vx, nx)
		}
	}
}
