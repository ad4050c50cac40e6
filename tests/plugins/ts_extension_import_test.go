package plugins_test

import (
	"reflect"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestConfigImportingTSByItsJSNameIsAnInput: a Vitest config that imports
// a TypeScript file by the JavaScript name it compiles to
// (typescript-eslint's packages import '../../vitest.config.base.mjs',
// and only vitest.config.base.mts exists), which Vitest loads as
// TypeScript does, has that file among its inputs: an edit of the shared
// base runs the tests again, as Nx does (its targetDefaults list the
// base). Before, the plugin looked for the file with an extension added
// ("….mjs.ts"), found none, and the edit was a cache hit.
func TestConfigImportingTSByItsJSNameIsAnInput(t *testing.T) {
	tools := toolsDir(t)
	root := vitestWorkspace(t, tools, map[string]string{
		".gitignore":                ".vx/\nnode_modules/\n",
		"package.json":              `{"name": "root", "private": true, "workspaces": ["packages/*"]}`,
		"vx.workspace.json":         `{"projects": ["packages/*"], "plugins": ["@vzn/vx-plugin-vitest"]}`,
		"vitest.config.base.mts":    "export const vitestBaseConfig = {\n  test: { globals: true, testTimeout: 10_000 },\n};\n",
		"packages/lib/package.json": `{"name": "lib", "version": "1.0.0", "type": "module"}`,
		"packages/lib/vitest.config.mts": "import { defineProject, mergeConfig } from 'vitest/config';\n\n" +
			"import { vitestBaseConfig } from '../../vitest.config.base.mjs';\n\n" +
			"export default mergeConfig(vitestBaseConfig, defineProject({ test: { include: ['tests/**/*.test.ts'] } }));\n",
		"packages/lib/tests/add.test.ts": "test('add', () => {\n  expect(1 + 2).toBe(3);\n});\n",
	})
	for _, step := range []struct {
		name string
		edit func()
		want string
	}{
		{"first run", func() {}, "ran"},
		{"nothing changed", func() {}, "hit"},
		{"the base edited", func() { replace(t, root, "vitest.config.base.mts", "10_000", "20_000") }, "ran"},
	} {
		step.edit()
		r := harness.Run(t, root, harness.Env("VX_LOG", "CI"), vxBin, "run", "test", "--format", "json")
		got, code := summary(t, r)
		if want := map[string]string{"lib#test": step.want}; !reflect.DeepEqual(whats(got), want) || code != 0 {
			t.Errorf("%s: vx run test did %v (exit %d), want %v (exit 0)\n%s", step.name, whats(got), code, want, r)
		}
	}
}
