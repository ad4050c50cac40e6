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
// and node_modules in a fresh git repository.
func workspace(t *testing.T) string {
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
	if err := os.Symlink(filepath.Join(fixture, "node_modules"), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@vx.invalid", "-c", "user.name=t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
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
// version every one, another locked package none.
func TestNxRerunsMatch(t *testing.T) {
	root := workspace(t)
	env := env(t)
	if r := harness.Run(t, root, env, vxBin, "init"); r.Code != 0 {
		t.Fatalf("%s", r)
	}
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
