package plugins_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestCoverageOnCIIsRestoredByAHit: with coverage enabled as TanStack/query
// enables it (`enabled: !!process.env.CI`), a run on CI writes the report
// and a cache hit after it was deleted brings it back, against Vitest from
// npm; a run off CI is another key (CI is part of it) and writes none.
func TestCoverageOnCIIsRestoredByAHit(t *testing.T) {
	tools := toolsDir(t)
	root := vitestWorkspace(t, tools, map[string]string{
		".gitignore":                ".vx/\nnode_modules/\ncoverage/\n",
		"package.json":              `{"name": "root", "private": true, "workspaces": ["packages/*"]}`,
		"vx.workspace.json":         `{"projects": ["packages/*"], "plugins": ["@vzn/vx-plugin-vitest"]}`,
		"packages/lib/package.json": `{"name": "lib", "version": "1.0.0", "type": "module"}`,
		"packages/lib/vite.config.mjs": "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({\n  test: {\n" +
			"    include: ['src/**/*.test.js'],\n    coverage: {\n      enabled: !!process.env.CI,\n      reporter: ['json-summary'],\n    },\n  },\n});\n",
		"packages/lib/src/index.js":      "export const add = (a, b) => a + b;\n",
		"packages/lib/src/index.test.js": "import { test, expect } from 'vitest';\nimport { add } from './index.js';\n\ntest('add', () => {\n  expect(add(1, 2)).toBe(3);\n});\n",
	})
	report := filepath.Join(root, "packages", "lib", "coverage", "coverage-summary.json")
	onCI := append(harness.Env("VX_LOG", "CI"), "CI=1")
	for _, step := range []struct {
		name   string
		env    []string
		want   string
		report bool
	}{
		{"on CI", onCI, "ran", true},
		{"on CI again, the report deleted", onCI, "hit", true},
		{"off CI", harness.Env("VX_LOG", "CI"), "ran", false},
	} {
		if err := os.RemoveAll(filepath.Dir(report)); err != nil {
			t.Fatal(err)
		}
		r := harness.Run(t, root, step.env, vxBin, "run", "test", "--format", "json")
		got, code := summary(t, r)
		if want := map[string]string{"lib#test": step.want}; !reflect.DeepEqual(whats(got), want) || code != 0 {
			t.Errorf("%s: vx run test did %v (exit %d), want %v (exit 0)\n%s", step.name, whats(got), code, want, r)
		}
		if _, err := os.Stat(report); (err == nil) != step.report {
			t.Errorf("%s: the coverage report is there: %v, want %v", step.name, err == nil, step.report)
		}
	}
}

// vitestWorkspace lays files out in a fresh git repository whose
// node_modules is what npm would install there: the pinned tools of node/
// (linked) and @vzn/vx-plugin-vitest (copied from npm/).
func vitestWorkspace(t *testing.T, tools string, files map[string]string) string {
	t.Helper()
	root := harness.TempRoot(t)
	for rel, text := range files {
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), text)
	}
	commitWorkspace(t, root, tools, nil, "vx-plugin-vitest")
	return root
}
