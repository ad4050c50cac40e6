package engine_test

import (
	"strings"
	"testing"
)

// TestEndOfFlags: vx run reads every argument after "--" as a task name,
// never a flag; runTasks and planTasks put the agent's task names there.
func TestEndOfFlags(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	r := vx(t, ws, nil, "run", "--dry=json", "--", "--force")
	if r.Code == 0 || !strings.Contains(r.Stderr, `--force`) || strings.Contains(r.Stderr, "unknown flag") {
		t.Fatalf("vx run -- --force: want a refusal of the task \"--force\"\n%s", r)
	}
	var p struct {
		Tasks []struct {
			TaskID string `json:"taskId"`
		} `json:"tasks"`
	}
	decodeOnly(t, vxOK(t, ws, nil, "run", "--dry=json", "--", "build"), &p)
	if len(p.Tasks) == 0 {
		t.Fatalf("vx run --dry=json -- build planned nothing")
	}
}
