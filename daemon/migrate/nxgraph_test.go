package migrate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// fakeNx installs node_modules/.bin/nx in dir as a shell script with body
// (it gets nx's arguments).
func fakeNx(t *testing.T, dir, body string) {
	t.Helper()
	bin := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "nx"), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// planWithGraph plans vx init in dir with an Nx whose resolved graph is
// graph (the JSON nx graph --file writes).
func planWithGraph(t *testing.T, dir, graph string) *Plan {
	t.Helper()
	file := filepath.Join(t.TempDir(), "graph.json")
	if err := os.WriteFile(file, []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	fakeNx(t, dir, `for a in "$@"; do case "$a" in --file=*) cp '`+file+`' "${a#--file=}";; esac; done`)
	p, err := PlanInit(t.Context(), dir, &Options{RunNx: true})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// applyAndLoad writes plan p in dir and loads the workspace it wrote.
func applyAndLoad(t *testing.T, p *Plan, dir string) *workspace.Model {
	t.Helper()
	if _, err := Apply(p, dir, nil); err != nil {
		t.Fatal(err)
	}
	m, err := workspace.Load(dir)
	if err != nil {
		t.Fatalf("loading the written config: %v", err)
	}
	return m
}

func fileText(t *testing.T, p *Plan, path string) string {
	t.Helper()
	for _, f := range p.Files {
		if f.Path == path {
			return f.Text
		}
	}
	t.Fatalf("the plan has no %s", path)
	return ""
}

// TestNxGraphTargets: with Nx installed, vx init migrates the targets of
// Nx's resolved graph (inferred ones included), with the dependencies Nx
// found, ^production as ^ inputs, sharedGlobals as a workspace ("/")
// input and executors as their commands.
func TestNxGraphTargets(t *testing.T) {
	dir := copyLayout(t, "nx-graph")
	graph, _ := filepath.Abs(filepath.Join("testdata", "nx-graph", "graph.json"))
	fakeNx(t, dir, `for a in "$@"; do case "$a" in --file=*) cp '`+graph+`' "${a#--file=}";; esac; done
[ "$NX_DAEMON" = false ] && [ "$NX_NO_CLOUD" = true ] || { echo "daemon or cloud on" >&2; exit 3; }`)
	p, err := PlanInit(context.Background(), dir, &Options{RunNx: true})
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
	for _, c := range []struct{ project, task, command string }{
		{"a", "test", "vitest"},
		{"a", "lint", "eslint src"},
		{"web", "test", "jest --config jest.config.ts --passWithNoTests"},
	} {
		def, ok := m.Resolve(c.project, c.task)
		if !ok || def.Command != c.command {
			t.Errorf("%s#%s: command %q (defined %v), want %q", c.project, c.task, def.Command, ok, c.command)
		}
	}
	web, _ := m.Project("web")
	if !slices.Equal(web.Deps, []string{"a"}) {
		t.Errorf("web depends on %v, want [a] (the import Nx found)", web.Deps)
	}
	def, _ := m.Resolve("web", "test")
	// Nx hashes the executor's package for a target that lists no
	// externalDependencies.
	want := []string{"**", "^**", "^!**/{*.,}{spec,test}.ts", "/tsconfig.base.json", "npm:@nx/jest"}
	if !slices.Equal(def.Inputs, want) {
		t.Errorf("web#test inputs %v, want %v", def.Inputs, want)
	}
	// build has no inputs: Nx hashes it as ["default", "^default"].
	if def, _ := m.Resolve("web", "build"); !slices.Equal(def.Inputs, []string{"**", "^**", "/tsconfig.base.json", "npm:@nx/webpack"}) {
		t.Errorf("web#build inputs %v, want [** ^** /tsconfig.base.json npm:@nx/webpack] (Nx's default inputs, sharedGlobals included)", def.Inputs)
	}
	if def, _ := m.Resolve("a", "test"); !slices.Contains(def.Inputs, "npm:vitest") {
		t.Errorf("a#test inputs %v lack npm:vitest (its externalDependencies)", def.Inputs)
	}
	var todos []string
	for _, td := range p.Todos {
		todos = append(todos, td.Reason)
	}
	all := strings.Join(todos, "\n")
	if strings.Contains(all, "infer targets vx does not see") || !strings.Contains(all, "@nx/webpack:webpack") {
		t.Errorf("todos: want the webpack executor and no plugin todo, got\n%s", all)
	}
	_ = fileText(t, p, "apps/web/vx.project.json")
}

// TestNxGraphFailure: an Nx that fails leaves a todo with its last lines,
// and project.json targets are still migrated; without RunNx (the
// planInit tool) Nx is not run at all.
func TestNxGraphFailure(t *testing.T) {
	dir := copyLayout(t, "nx-graph")
	marker := filepath.Join(dir, "ran")
	fakeNx(t, dir, `touch '`+marker+`'; echo "NX   Failed to process project graph: boom" >&2; exit 1`)
	p, err := PlanInit(context.Background(), dir, &Options{RunNx: true})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, td := range p.Todos {
		found = found || strings.Contains(td.Reason, "could not read Nx's resolved graph") && strings.Contains(td.Reason, "boom")
	}
	if !found {
		t.Errorf("no todo gives Nx's failure: %+v", p.Todos)
	}
	os.Remove(marker)
	p, err = PlanInit(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("PlanInit without RunNx ran the repository's Nx")
	}
	found = false
	for _, td := range p.Todos {
		found = found || strings.Contains(td.Reason, "only vx init on the command line runs the repository's Nx")
	}
	if !found {
		t.Errorf("no todo says Nx was not run: %+v", p.Todos)
	}
}
