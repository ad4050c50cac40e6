package workspace_test

import (
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

func TestGlobsMayOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{".cache/tsbuildinfo.json", ".cache/tsbuildinfo.json", true},
		{".cache/tsbuildinfo.json", "./.cache/tsbuildinfo.json", true},
		{"dist/**", "dist/index.js", true},
		{"dist", "dist/index.js", true}, // a directory holds its files
		{".cache/**", ".cache/tsbuildinfo.json", true},
		{"dist/*.js", "dist/index.js", true},
		{"dist/*.js", "dist/index.d.ts", false},
		{"dist/**", "lib/**", false},
		{"dist/**", ".cache/tsbuildinfo.json", false},
		{"**/*.js", "lib/x.js", true},
		{"out/a/*.txt", "out/b/*.txt", false},
		{"coverage/**", "coverage-final.json", false},
	} {
		if got := workspace.GlobsMayOverlap(tc.a, tc.b); got != tc.want {
			t.Errorf("GlobsMayOverlap(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := workspace.GlobsMayOverlap(tc.b, tc.a); got != tc.want {
			t.Errorf("GlobsMayOverlap(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

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
