package workspace_test

import (
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
