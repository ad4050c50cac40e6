package plugins_test

import (
	"reflect"
	"testing"
)

// TestCoverageThatMayBeEnabledIsAnOutput: a Vitest config that enables
// coverage through an expression (TanStack/query's `enabled:
// !!process.env.CI`) has the coverage directory among the test task's
// outputs, as `enabled: true` does: vx cannot tell whether a run will
// write it, and an output left out is lost on a cache hit. The variables
// the coverage block reads join the task's env (what decides whether the
// report is written is part of the key). `enabled: false`, or no
// `enabled`, declares none.
func TestCoverageThatMayBeEnabledIsAnOutput(t *testing.T) {
	files := map[string]string{
		"packages/ci/vite.config.ts": "export default {\n  test: {\n    coverage: {\n      enabled: !!process.env.CI,\n" +
			"      provider: 'istanbul',\n      include: ['src/**/*'],\n    },\n  },\n};\n",
		"packages/flag/vitest.config.ts": "export default { test: { coverage: { enabled: process.env['COVERAGE'] === '1', reportsDirectory: 'out/cov' } } };\n",
		"packages/off/vitest.config.ts":  "export default { test: { coverage: { enabled: false, include: ['src/**'] } } };\n",
		"packages/none/vitest.config.ts": "export default { test: { coverage: { provider: 'v8' } } };\n",
	}
	root, matched := layoutConfigs(t, files)
	projects := []project{{"ci", "packages/ci"}, {"flag", "packages/flag"}, {"off", "packages/off"}, {"none", "packages/none"}}
	type seen struct {
		outputs, env []string
		provider     bool
	}
	got := map[string]seen{}
	for _, tk := range tasks(t, "vitest", root, nil, matched, projects) {
		s := seen{outputs: tk.Outputs, env: tk.Env}
		for _, in := range tk.Inputs {
			s.provider = s.provider || in == "npm:@vitest/coverage-istanbul" || in == "npm:@vitest/coverage-v8"
		}
		got[tk.Project] = s
	}
	want := map[string]seen{
		"ci":   {outputs: []string{"coverage/**"}, env: []string{"CI"}, provider: true},
		"flag": {outputs: []string{"out/cov/**"}, env: []string{"CI", "COVERAGE"}, provider: true},
		"off":  {env: []string{"CI"}},
		"none": {env: []string{"CI"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("vitest coverage:\n got %+v\nwant %+v", got, want)
	}
}
