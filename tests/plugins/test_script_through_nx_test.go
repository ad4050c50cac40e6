package plugins_test

import (
	"testing"
)

// TestAScriptThatRunsNxIsNotAnotherRunner: in a package-based Nx
// workspace each package's `test` script hands the task to Nx
// (typescript-eslint: "test": "pnpm -w exec nx test"), whose inferred
// target runs Vitest on the package's config. That script runs Vitest
// (through Nx), so the project gets the plugin's `vitest run`, which is
// the Nx target it replaces; kept as the task, the script would start Nx
// from vx for every project. A script running another runner ("bun
// test") still keeps its task.
func TestAScriptThatRunsNxIsNotAnotherRunner(t *testing.T) {
	config := "export default { test: {} };\n"
	root, files := layoutConfigs(t, map[string]string{
		"packages/pnpmnx/package.json":      `{"name": "pnpmnx", "scripts": {"test": "pnpm -w exec nx test"}}`,
		"packages/pnpmnx/vitest.config.mts": config,
		"packages/npxnx/package.json":       `{"name": "npxnx", "scripts": {"test": "npx nx run npxnx:test --skip-nx-cache"}}`,
		"packages/npxnx/vitest.config.mts":  config,
		"packages/bare/package.json":        `{"name": "bare", "scripts": {"test": "nx test bare"}}`,
		"packages/bare/vitest.config.mts":   config,
		"packages/bun/package.json":         `{"name": "bun", "scripts": {"test": "bun test"}}`,
		"packages/bun/vitest.config.mts":    config,
		"packages/nxish/package.json":       `{"name": "nxish", "scripts": {"test": "nx-test-runner"}}`,
		"packages/nxish/vitest.config.mts":  config,
	})
	var projects []project
	for _, name := range []string{"pnpmnx", "npxnx", "bare", "bun", "nxish"} {
		projects = append(projects, project{name, "packages/" + name})
	}
	got := map[string]string{}
	for _, tk := range tasks(t, "vitest", root, nil, files, projects) {
		got[tk.Project] = tk.Command
	}
	for _, name := range []string{"pnpmnx", "npxnx", "bare"} {
		if got[name] != "vitest run" {
			t.Errorf("%s, whose test script runs Nx: task %q, want \"vitest run\"", name, got[name])
		}
	}
	for _, name := range []string{"bun", "nxish"} {
		if cmd, ok := got[name]; ok {
			t.Errorf("%s, whose test script runs another runner: the plugin gave it %q, want no task", name, cmd)
		}
	}
}
