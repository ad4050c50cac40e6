package plugins_test

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestScriptsComeFromTheRequest: both plugins take a project's scripts
// from the tasks request, which vx fills from the package.json it loaded
// (and whose change asks the plugins again), over the file on disk; a
// request without them (an older vx) has the file read.
func TestScriptsComeFromTheRequest(t *testing.T) {
	root := layout(t, map[string]string{
		"eslint.config.js":             "export default [];\n",
		"packages/a/package.json":      `{"name": "a", "scripts": {"lint": "eslint src", "test": "vitest run"}}`,
		"packages/a/vitest.config.mjs": "export default {};\n",
		"packages/a/src/index.js":      "export {};\n",
	})
	given := []map[string]any{{"name": "a", "root": "packages/a", "scripts": map[string]string{"lint": "eslint lib", "test": "bun test"}}}
	onDisk := []project{{"a", "packages/a"}}
	if got := commands(tasksGiven(t, "eslint", root, []string{"eslint.config.js"}, given)); !reflect.DeepEqual(got, map[string]string{"a": "eslint lib"}) {
		t.Errorf("eslint with the scripts given: %v, want the given lint script", got)
	}
	if got := commands(tasks(t, "eslint", root, nil, []string{"eslint.config.js"}, onDisk)); !reflect.DeepEqual(got, map[string]string{"a": "eslint src"}) {
		t.Errorf("eslint with no scripts given: %v, want package.json's lint script", got)
	}
	if got := commands(tasksGiven(t, "vitest", root, []string{"packages/a/vitest.config.mjs"}, given)); len(got) != 0 {
		t.Errorf("vitest with a given test script that runs Bun: %v, want no task", got)
	}
	if got := commands(tasks(t, "vitest", root, nil, []string{"packages/a/vitest.config.mjs"}, onDisk)); !reflect.DeepEqual(got, map[string]string{"a": "vitest run"}) {
		t.Errorf("vitest with no scripts given: %v, want vitest run", got)
	}
}

// tasksGiven asks for the plugin's tasks with projects as vx sends them
// now, scripts included.
func tasksGiven(t *testing.T, plugin, root string, files []string, projects []map[string]any) []task {
	t.Helper()
	a := ask(t, plugin, root, map[string]any{"protocol": 1, "stage": "tasks", "options": map[string]any{}, "files": files, "projects": projects})
	var out struct{ Tasks []task }
	if a.code != 0 || json.Unmarshal([]byte(a.stdout), &out) != nil {
		t.Fatalf("the %s plugin failed (exit %d): %s%s", plugin, a.code, a.stdout, a.stderr)
	}
	return out.Tasks
}
