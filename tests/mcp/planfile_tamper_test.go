//go:build !windows

package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTamperedPlanFileRunsNothing: the plan a person reads (its tasks,
// their keys and commands) is the plan vx run --plan runs. A plan file
// whose request and task keys were swapped for another task's, while its
// task list still shows the one that was planned, or whose shown command
// was changed, is refused with exit 1 and nothing runs.
func TestTamperedPlanFileRunsNothing(t *testing.T) {
	root := workspace(t, "policy")
	dir := t.TempDir()
	dry := func(task string) map[string]any {
		t.Helper()
		r := run(t, root, nil, vxBin, "run", task, "--filter", "one", "--dry=json")
		if r.Code != 0 {
			t.Fatalf("vx run %s --dry=json\n%s", task, r)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
			t.Fatalf("the dry run's plan: %v\n%s", err, r.Stdout)
		}
		return doc
	}
	write := func(name string, doc map[string]any) string {
		t.Helper()
		b, _ := json.Marshal(doc)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	runs := len(runsRecorded(t, root))

	// The shown tasks say one#lint; the request and keys are one#prep's.
	swapped, other := dry("lint"), dry("prep")
	swapped["request"] = other["request"]
	swapped["prerequisites"].(map[string]any)["taskKeys"] = other["prerequisites"].(map[string]any)["taskKeys"]
	if r := run(t, root, nil, vxBin, "run", "--plan", write("swapped.json", swapped)); r.Code != 1 || !strings.Contains(r.Stderr, "nothing ran") || strings.Contains(r.Stdout, "one prepared") {
		t.Errorf("a plan file showing one#lint whose request selects one#prep: want exit 1, nothing run\n%s", r)
	}

	// The shown command is not the one the workspace would run.
	edited := dry("lint")
	edited["tasks"].([]any)[0].(map[string]any)["command"] = "echo something else"
	if r := run(t, root, nil, vxBin, "run", "--plan", write("edited.json", edited)); r.Code != 1 || !strings.Contains(r.Stderr, "nothing ran") || strings.Contains(r.Stdout, "one linted") {
		t.Errorf("a plan file whose shown command was changed: want exit 1, nothing run\n%s", r)
	}

	// A task dropped from the shown list (the request still selects it).
	dropped := dry("test")
	dropped["tasks"] = dropped["tasks"].([]any)[1:]
	if r := run(t, root, nil, vxBin, "run", "--plan", write("dropped.json", dropped)); r.Code != 1 || !strings.Contains(r.Stderr, "nothing ran") {
		t.Errorf("a plan file showing fewer tasks than its request selects: want exit 1, nothing run\n%s", r)
	}
	if n := len(runsRecorded(t, root)); n != runs {
		t.Errorf("tampered plans recorded runs (%d, want %d)", n, runs)
	}
}
