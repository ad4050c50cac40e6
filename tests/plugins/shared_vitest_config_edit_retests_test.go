package plugins_test

import (
	"path/filepath"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestEditingTheWorkspacesSharedVitestConfigRetests: a project's Vitest
// config that imports a shared config kept in the workspace as a package
// with no build (Turborepo's with-vitest example: `import { sharedConfig }
// from '@repo/vitest-config'`), installed at the root rather than named
// by the project's package.json (so `^**` does not reach it), has that
// package's files among its test task's inputs: an edit to the shared
// config tests again and gives the new verdict, where the lockfile
// `npm:@repo/vitest-config` stands for does not change and a cache hit
// would replay the old one.
func TestEditingTheWorkspacesSharedVitestConfigRetests(t *testing.T) {
	tools := toolsDir(t)
	root := harness.TempRoot(t)
	for rel, text := range map[string]string{
		".gitignore":                          ".vx/\nnode_modules/\n",
		"package.json":                        `{"name": "root", "private": true, "type": "module", "workspaces": ["packages/*"], "devDependencies": {"@repo/vitest-config": "workspace:*"}}`,
		"vx.workspace.json":                   `{"projects": ["packages/*"], "plugins": ["@vzn/vx-plugin-vitest"]}`,
		"packages/vitest-config/package.json": `{"name": "@repo/vitest-config", "type": "module", "exports": {".": "./index.js"}}`,
		"packages/vitest-config/index.js":     "export const sharedConfig = { test: { include: ['src/**/*.test.js'], env: { LIMIT: '5' } } };\n",
		"packages/app/package.json":           `{"name": "app", "type": "module"}`,
		"packages/app/vitest.config.mjs":      "import { defineConfig } from 'vitest/config';\nimport { sharedConfig } from '@repo/vitest-config';\nexport default defineConfig(sharedConfig);\n",
		"packages/app/src/limit.test.js":      "import { test, expect } from 'vitest';\ntest('limit', () => expect(Number(process.env.LIMIT)).toBeLessThan(10));\n",
	} {
		harness.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), text)
	}
	commitWorkspace(t, root, tools, map[string]string{"node_modules/@repo/vitest-config": "../../packages/vitest-config"}, "vx-plugin-vitest")
	editSteps(t, root, "test", "app#test", "packages/vitest-config/index.js", []editStep{
		{"first run", "", "", "ran", 0},
		{"no change", "", "", "hit", 0},
		{"the shared config raises the limit", "LIMIT: '5'", "LIMIT: '50'", "failed", 1},
		{"and lowers it again", "LIMIT: '50'", "LIMIT: '5'", "hit", 0},
	})
}
