package plugins_test

import (
	"reflect"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// rootProjects is trpc/trpc's layout (at 340811ba5): the root config lists
// the packages in test.projects and holds the settings, each package's
// config re-exports it. A root setup file defines what the tests use.
var rootProjects = map[string]string{
	".gitignore":        ".vx/\nnode_modules/\ncoverage/\n",
	"package.json":      `{"name": "root", "private": true, "type": "module", "workspaces": ["packages/*"]}`,
	"vx.workspace.json": `{"projects": ["packages/*"], "plugins": ["@vzn/vx-plugin-vitest"]}`,
	"vitest.config.mjs": "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({\n  test: {\n" +
		"    projects: ['./packages/*'],\n    globals: true,\n    setupFiles: ['../../tools/setup.mjs'],\n  },\n});\n",
	"tools/setup.mjs":              "globalThis.answer = 42;\n",
	"packages/a/package.json":      `{"name": "@ws/a", "version": "1.0.0", "type": "module"}`,
	"packages/a/vitest.config.mjs": "export { default } from '../../vitest.config.mjs';\n",
	"packages/a/src/index.js":      "export const half = (n) => n / 2;\n",
	"packages/a/src/index.test.js": "import { half } from './index.js';\n\ntest('half', () => {\n  expect(half(globalThis.answer)).toBe(21);\n});\n",
	"packages/b/package.json":      `{"name": "@ws/b", "version": "1.0.0", "type": "module"}`,
	"packages/b/vitest.config.mjs": "export { default } from '../../vitest.config.mjs';\n",
	"packages/b/src/index.js":      "export const twice = (n) => n * 2;\n",
	"packages/b/src/index.test.js": "import { twice } from './index.js';\n\ntest('twice', () => {\n  expect(twice(globalThis.answer)).toBe(84);\n});\n",
	"packages/b/src/other.test.js": "test('b only', () => {\n  expect(1).toBe(1);\n});\n",
}

// TestRootProjectsRunFromTheRoot: a package whose config re-exports a root
// config listing it in test.projects gets a test task that passes, against
// Vitest from npm (`vitest run` in the package stops with "No projects
// were found"), that runs that package's tests alone (a failing test of
// one package fails its task only), and whose key has the root config and
// its setup file: editing either runs every package again.
func TestRootProjectsRunFromTheRoot(t *testing.T) {
	tools := toolsDir(t)
	root := vitestWorkspace(t, tools, rootProjects)
	env := harness.Env("VX_LOG", "CI")
	for _, step := range []struct {
		name string
		edit func()
		want map[string]string
		code int
	}{
		{"cold", nil, map[string]string{"@ws/a#test": "ran", "@ws/b#test": "ran"}, 0},
		{"nothing changed", nil, map[string]string{"@ws/a#test": "hit", "@ws/b#test": "hit"}, 0},
		{"a failing test in a", func() { replace(t, root, "packages/a/src/index.js", "n / 2", "n / 3") },
			map[string]string{"@ws/a#test": "failed", "@ws/b#test": "hit"}, 1},
		{"fixed", func() { replace(t, root, "packages/a/src/index.js", "n / 3", "n / 2") },
			map[string]string{"@ws/a#test": "hit", "@ws/b#test": "hit"}, 0},
		{"the root setup file", func() { replace(t, root, "tools/setup.mjs", "42", "40 + 2") },
			map[string]string{"@ws/a#test": "ran", "@ws/b#test": "ran"}, 0},
		{"the root config", func() {
			replace(t, root, "vitest.config.mjs", "globals: true,", "globals: true, passWithNoTests: false,")
		},
			map[string]string{"@ws/a#test": "ran", "@ws/b#test": "ran"}, 0},
	} {
		if step.edit != nil {
			step.edit()
		}
		r := harness.Run(t, root, env, vxBin, "run", "test", "--continue", "--format", "json")
		got, code := summary(t, r)
		if w := whats(got); !reflect.DeepEqual(w, step.want) || code != step.code {
			t.Errorf("%s: vx run test did %v (exit %d), want %v (exit %d)\n%s", step.name, w, code, step.want, step.code, r)
		}
	}
}

// TestRootProjectsAnswer: the task of a package covered by a root
// config's test.projects runs the root's Vitest from the root filtered to
// the Vitest project's name (its own test.name, else its package.json
// name, else its directory's), with the root config, its setup files and
// its jsdom or happy-dom environment among the inputs; a package the
// projects globs leave out, or whose config imports no root config, keeps
// `vitest run`.
func TestRootProjectsAnswer(t *testing.T) {
	root, matched := layoutConfigs(t, map[string]string{
		"vitest.config.ts": "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: {\n" +
			"  projects: ['./packages/*', '!./packages/skip', { test: { name: 'inline', root: './other' } }],\n" +
			"  environment: 'jsdom', setupFiles: ['../tests/setup.ts', './local.ts', '@testing-library/jest-dom'],\n} });\n",
		"packages/tests/setup.ts":          "export {};\n",
		"packages/client/package.json":     `{"name": "@trpc/client"}`,
		"packages/client/vitest.config.ts": "export { default } from '../../vitest.config';\n",
		"packages/named/package.json":      `{"name": "@trpc/named"}`,
		"packages/named/vitest.config.ts": "import { mergeConfig } from 'vitest/config';\nimport base from '../../vitest.config';\n" +
			"export default mergeConfig(base, { test: { browser: { name: 'chromium' }, name: 'named one' } });\n",
		"packages/skip/vitest.config.ts": "export { default } from '../../vitest.config';\n",
		"packages/own/vitest.config.ts":  "export default { test: { environment: 'jsdom' } };\n",
	})
	projects := []project{{"client", "packages/client"}, {"named", "packages/named"}, {"skip", "packages/skip"}, {"own", "packages/own"}}
	got := map[string][2]any{}
	for _, tk := range tasks(t, "vitest", root, nil, matched, projects) {
		got[tk.Project] = [2]any{tk.Command, tk.Inputs}
	}
	rooted := func(extra ...string) []string {
		in := append(append([]string{}, vitestBase...), "/vitest.config.ts", "/tsconfig*.json", "npm:vitest", "/packages/tests/setup.ts", "npm:@testing-library/jest-dom", "npm:jsdom")
		return append(in, extra...)
	}
	want := map[string][2]any{
		"client": {"node ../../node_modules/vitest/vitest.mjs run --root ../.. --project @trpc/client", rooted()},
		"named":  {`node ../../node_modules/vitest/vitest.mjs run --root ../.. --project "named one"`, rooted()},
		"skip":   {"vitest run", append(append([]string{}, vitestBase...), "/vitest.config.ts", "/tsconfig*.json", "npm:vitest")},
		"own":    {"vitest run", append(append([]string{}, vitestBase...), "/tsconfig*.json", "npm:vitest")},
	}
	for p, w := range want {
		if !reflect.DeepEqual(got[p], w) {
			t.Errorf("the test task of %s:\n got %q\nwant %q", p, got[p], w)
		}
	}
}
