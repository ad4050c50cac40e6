package plugins_test

import (
	"reflect"
	"testing"
)

// TestACompoundTestScriptRunsAsWritten: a project whose test script runs
// Vitest among other commands ("tsc --noEmit && vitest run", "vitest run
// && node check.js") keeps those commands: the inferred task runs the
// script as written, where it ran Vitest alone and dropped the type check
// or the check after it. A script that is Vitest alone, with flags or in
// watch form, still gets `vitest run`; an operator inside quotes is no
// second command.
func TestACompoundTestScriptRunsAsWritten(t *testing.T) {
	config := "export default {};\n"
	root := layout(t, map[string]string{
		"packages/tsc/vitest.config.mjs":    config,
		"packages/check/vitest.config.mjs":  config,
		"packages/watch/vitest.config.mjs":  config,
		"packages/quoted/vitest.config.mjs": config,
	})
	projects := []map[string]any{
		{"name": "tsc", "root": "packages/tsc", "scripts": map[string]string{"test": "tsc --noEmit && vitest run"}},
		{"name": "check", "root": "packages/check", "scripts": map[string]string{"test": " vitest run && node check.js "}},
		{"name": "watch", "root": "packages/watch", "scripts": map[string]string{"test": "vitest --coverage"}},
		{"name": "quoted", "root": "packages/quoted", "scripts": map[string]string{"test": "vitest run -t 'a && b'"}},
	}
	files := []string{"packages/check/vitest.config.mjs", "packages/quoted/vitest.config.mjs", "packages/tsc/vitest.config.mjs", "packages/watch/vitest.config.mjs"}
	got := commands(tasksGiven(t, "vitest", root, files, projects))
	want := map[string]string{
		"tsc":    "tsc --noEmit && vitest run",
		"check":  "vitest run && node check.js",
		"watch":  "vitest run",
		"quoted": "vitest run",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("test commands: got %v, want %v", got, want)
	}
}
