package plugins_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestAProjectTestedByAnotherRunnerKeepsItsScript: a project with a Vitest
// config whose own `test` script runs another test runner
// (honojs/middleware's bun-compress: a vitest.config.ts, and "test": "bun
// test", which is what its CI runs) keeps its script as the `test` task,
// as `pnpm -r test` runs it; Vitest would run tests written for the other
// runner and fail them. A script that runs Vitest, with or without `run`,
// or no script at all, gets `vitest run`, and the task follows an edit of
// the script.
func TestAProjectTestedByAnotherRunnerKeepsItsScript(t *testing.T) {
	tools := toolsDir(t)
	config := "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['src/**/*.test.mjs'] } });\n"
	nodeTest := "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.equal(1 + 2, 3));\n"
	vitestTest := "import { test, expect } from 'vitest';\ntest('adds', () => expect(1 + 2).toBe(3));\n"
	root := harness.TempRoot(t)
	for rel, text := range map[string]string{
		".gitignore":                       ".vx/\nnode_modules/\n",
		"package.json":                     `{"name": "root", "private": true, "workspaces": ["packages/*"]}`,
		"vx.workspace.json":                `{"projects": ["packages/*"], "plugins": ["@vzn/vx-plugin-vitest"]}`,
		"packages/node/package.json":       `{"name": "node", "type": "module", "scripts": {"test": "node --test src/"}}`,
		"packages/node/vitest.config.mjs":  config,
		"packages/node/src/add.test.mjs":   nodeTest,
		"packages/watch/package.json":      `{"name": "watch", "type": "module", "scripts": {"test": "vitest"}}`,
		"packages/watch/vitest.config.mjs": config,
		"packages/watch/src/add.test.mjs":  vitestTest,
		"packages/none/package.json":       `{"name": "none", "type": "module"}`,
		"packages/none/vitest.config.mjs":  config,
		"packages/none/src/add.test.mjs":   vitestTest,
	} {
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), text)
	}
	commitWorkspace(t, root, tools, nil, "vx-plugin-vitest")
	env := harness.Env("VX_LOG", "CI")
	r := harness.Run(t, root, env, vxBin, "run", "test", "--continue", "--format", "json")
	got, code := summary(t, r)
	if want := map[string]string{"node#test": "ran", "watch#test": "ran", "none#test": "ran"}; !reflect.DeepEqual(whats(got), want) || code != 0 {
		t.Errorf("vx run test: did %v (exit %d), want %v (exit 0)\n%s", whats(got), code, want, r)
	}
	r = harness.Run(t, root, env, vxBin, "show", "node#test")
	if want := "node --test src/"; !strings.Contains(r.Stdout, want) || strings.Contains(r.Stdout, "plugin vitest") {
		t.Errorf("vx show node#test: want its script %q, not a task of the vitest plugin\n%s", want, r)
	}
	// The script now runs Vitest: the plugin's task, which runs the
	// node:test file under Vitest and fails it.
	replace(t, root, "packages/node/package.json", `"node --test src/"`, `"vitest --passWithNoTests"`)
	r = harness.Run(t, root, env, vxBin, "run", "test", "--continue", "--format", "json")
	got, code = summary(t, r)
	if want := map[string]string{"node#test": "failed", "watch#test": "hit", "none#test": "hit"}; !reflect.DeepEqual(whats(got), want) || code != 1 {
		t.Errorf("vx run test after node's script became vitest: did %v (exit %d), want %v (exit 1)\n%s", whats(got), code, want, r)
	}
}
