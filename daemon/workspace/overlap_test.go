package workspace_test

import (
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// TestOutputOverlaps: two tasks of one project that declare the same
// file and do not depend on each other are reported; a pair ordered by
// dependsOn, and tasks of different projects, are not.
func TestOutputOverlaps(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json": `{"projects": ["pkgs/*"], "tasks": {
			"build": {"outputs": ["dist/**", ".cache/tsbuildinfo.json"]},
			"typecheck": {"outputs": [".cache/tsbuildinfo.json"]},
			"bundle": {"dependsOn": ["build"], "outputs": ["dist/bundle.js"]},
			"lint": {"outputs": ["lint.txt"]}
		}}`,
		"pkgs/a/package.json": `{"name": "a", "scripts": {"build": "x", "typecheck": "x", "bundle": "x", "lint": "x"}}`,
		"pkgs/b/package.json": `{"name": "b", "scripts": {"build": "x"}}`,
	})
	got := m.OutputOverlaps()
	want := []workspace.OutputOverlap{{Project: "a", Tasks: [2]string{"a#build", "a#typecheck"}, Outputs: [2]string{".cache/tsbuildinfo.json", ".cache/tsbuildinfo.json"}}}
	if len(got) != len(want) || got[0] != want[0] {
		t.Errorf("OutputOverlaps = %+v, want %+v", got, want)
	}
}

// TestRunOverlaps: a run's lock groups come from the workspace's pairs
// only where one of its tasks may share outputs with another task of its
// project; a run of tasks that overlap nothing gets none, however many
// pairs other tasks form.
func TestRunOverlaps(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json": `{"projects": ["pkgs/*"], "tasks": {
			"build": {"outputs": ["dist/**"]},
			"ref": {"outputs": ["ref/**"]},
			"ref2": {"outputs": ["ref/**"]},
			"lint": {}
		}}`,
		"pkgs/a/package.json": `{"name": "a", "scripts": {"build": "x", "ref": "x", "ref2": "x", "lint": "x"}}`,
		"pkgs/b/package.json": `{"name": "b", "scripts": {"build": "x", "ref": "x", "ref2": "x"}}`,
	})
	all := m.OutputOverlaps()
	if len(all) != 2 {
		t.Fatalf("OutputOverlaps = %+v", all)
	}
	for _, tc := range []struct {
		tasks []string
		want  int
	}{{[]string{"build"}, 0}, {[]string{"lint", "build"}, 0}, {[]string{"ref"}, 2}, {[]string{"b#ref2"}, 2}} {
		g, err := m.Build(tc.tasks, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.RunOverlaps(g); len(got) != tc.want {
			t.Errorf("RunOverlaps(%v) = %+v, want %d pairs", tc.tasks, got, tc.want)
		}
	}
}

// TestTaskOutputsAgreesWithResolve: TaskOutputs answers Resolve's outputs,
// whether the task runs a command, and whether it is defined, whichever
// layer (workspace task, project#task, vx.project.json, package.json
// script) sets them.
func TestTaskOutputsAgreesWithResolve(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json": `{"projects": ["pkgs/*"], "tasks": {
			"build": {"outputs": ["dist/**"]},
			"gen": {"command": "gen", "outputs": ["gen/**"]},
			"noop": {"dependsOn": ["build"]},
			"b#gen": {"command": "", "outputs": ["other/**"]},
			"//#root": {"command": "x", "outputs": ["r/**"]}
		}}`,
		"pkgs/a/package.json":    `{"name": "a", "scripts": {"build": "x", "lint": "y"}}`,
		"pkgs/a/vx.project.json": `{"tasks": {"build": {"outputs": ["out/**"]}, "lint": {"command": ""}}}`,
		"pkgs/b/package.json":    `{"name": "b", "scripts": {"test": "z"}}`,
	})
	for _, p := range []string{"a", "b", "c", workspace.RootProject} {
		for _, name := range append(m.TaskNames(), "root", "missing") {
			def, defined := m.Resolve(p, name)
			outputs, runs, ok := m.TaskOutputs(p, name)
			if ok != defined || runs != !def.NoOp() || strings.Join(outputs, ",") != strings.Join(def.Outputs, ",") {
				t.Errorf("%s#%s: TaskOutputs %v %v %v, Resolve %v %v %v", p, name, outputs, runs, ok, def.Outputs, !def.NoOp(), defined)
			}
		}
	}
}
