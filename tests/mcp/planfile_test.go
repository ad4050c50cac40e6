//go:build !windows

package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// TestRunPlanFile: `vx run --dry=json > plan.json` then `vx run --plan
// plan.json` runs exactly that plan; a plan whose prerequisites moved or
// that expired is refused with exit 1, naming why, and nothing runs; a
// selection beside --plan or a file that is no plan is a usage error.
func TestRunPlanFile(t *testing.T) {
	root := workspace(t, "policy")
	plan := filepath.Join(t.TempDir(), "plan.json")
	dry := func() {
		t.Helper()
		r := run(t, root, nil, vxBin, "run", "lint", "--filter", "one", "--dry=json")
		if r.Code != 0 {
			t.Fatalf("vx run --dry=json\n%s", r)
		}
		if err := os.WriteFile(plan, []byte(r.Stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dry()
	s := vxRun(t, root, nil, 0, "--plan", plan)
	if len(s.Tasks) != 1 || s.Tasks[0].TaskID != "one#lint" {
		t.Fatalf("vx run --plan ran %+v, want one#lint (the plan's --filter one)", s.Tasks)
	}
	runs := len(runsRecorded(t, root))

	dry()
	harness.WriteFile(t, filepath.Join(root, "pkgs/one/package.json"),
		`{ "name": "one", "scripts": { "prep": "echo one prepared", "test": "echo one tested", "lint": "echo one linted again", "nap": "true" } }`)
	r := run(t, root, nil, vxBin, "run", "--plan", plan)
	if r.Code != 1 || !strings.Contains(r.Stderr, "no longer matches the workspace, nothing ran") ||
		!strings.Contains(r.Stderr, "pkgs/one/package.json changed") || !strings.Contains(r.Stderr, "one#lint's key changed") {
		t.Errorf("a plan whose manifest moved: want exit 1 naming it\n%s", r)
	}
	if n := len(runsRecorded(t, root)); n != runs {
		t.Errorf("a refused plan recorded a run (%d runs, want %d)", n, runs)
	}

	dry()
	var doc map[string]any
	b, _ := os.ReadFile(plan)
	if err := json.Unmarshal(b, &doc); err != nil || doc["expiresAt"] == nil || doc["prerequisites"] == nil || doc["request"] == nil {
		t.Fatalf("the dry run's plan lacks expiresAt, prerequisites or request: %v\n%s", err, b)
	}
	doc["expiresAt"] = time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	b, _ = json.Marshal(doc)
	harness.WriteFile(t, plan, string(b))
	if r := run(t, root, nil, vxBin, "run", "--plan", plan); r.Code != 1 || !strings.Contains(r.Stderr, "expired") {
		t.Errorf("an expired plan: want exit 1 saying so\n%s", r)
	}

	for _, args := range [][]string{
		{"run", "lint", "--plan", plan},
		{"run", "--plan", plan, "--filter", "two"},
		{"run", "--plan", filepath.Join(root, "vx.workspace.json")},
		{"run", "--plan", filepath.Join(root, "no-such-plan.json")},
	} {
		if r := run(t, root, nil, vxBin, args...); r.Code != 2 {
			t.Errorf("vx %s: want exit 2\n%s", strings.Join(args, " "), r)
		}
	}
	if n := len(runsRecorded(t, root)); n != runs {
		t.Errorf("refusals recorded runs (%d, want %d)", n, runs)
	}
}
