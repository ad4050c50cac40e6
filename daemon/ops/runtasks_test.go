package ops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/opkit"
)

func testEnv(t *testing.T) *Env {
	t.Helper()
	return newEnv(t, []string{}, map[string]string{
		"vx.workspace.json":   `{"projects": ["pkgs/*"], "tasks": {"build": {}}}`,
		"pkgs/a/package.json": `{"name": "a", "scripts": {"build": "true"}}`,
		"pkgs/b/package.json": `{"name": "b", "scripts": {"build": "true"}}`,
	})
}

// newEnv is the Env of a workspace of files, loaded from a fresh temp dir,
// its tasks run with env.
func newEnv(t *testing.T, env []string, files map[string]string) *Env {
	t.Helper()
	root := testtree.New(t, files)
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return NewEnv(root, m, nil, env)
}

// TestTaskArgsNeverFlags: an agent's task names and filters reach vx run
// only after "--" or as a flag's "=value", so none can be read as a flag,
// and a task starting with "-" is refused (Tasks.Check, which the
// operation runs) before anything starts.
func TestTaskArgsNeverFlags(t *testing.T) {
	e := testEnv(t)
	args, err := taskArgs(e, RunTasksInput{PlanTasksInput: PlanTasksInput{Tasks: []string{"build", "a#build"}, Filters: []string{"-x", "a"}, Affected: Affected{On: true}}}, nil, "--dry=json")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run", "--filter=-x", "--filter=a", "--affected", "--dry=json", "--", "build", "a#build"}
	if !slices.Equal(args, want) {
		t.Errorf("command line %q; want %q", args, want)
	}
	var plan *Operation
	for _, op := range Operations() {
		if op.Name == OpPlanTasks {
			plan = op
		}
	}
	for _, tc := range []struct {
		tasks []string
		arg   string
	}{{[]string{"--force", "build"}, "tasks[0]"}, {[]string{"build", "--"}, "tasks[1]"}, {[]string{"-"}, "tasks[0]"}} {
		_, err := plan.Call(t.Context(), e, &PlanTasksInput{Tasks: tc.tasks})
		var ae *opkit.Refusal
		if !errors.As(err, &ae) || ae.Arg != tc.arg {
			t.Errorf("tasks %q: %v; want a refusal of the argument %s", tc.tasks, err, tc.arg)
		}
	}
}

// TestPlanTasksInProcess: planTasks plans without a child (no vx binary is
// given) from the configuration on disk, and an unknown task is a refusal
// that nothing ran.
func TestPlanTasksInProcess(t *testing.T) {
	e := testEnv(t)
	out, err := PlanTasks(context.Background(), e, RunTasksInput{PlanTasksInput: PlanTasksInput{Tasks: []string{"build"}, Filters: []string{"a"}}, VX: "/nonexistent/vx"})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 0 || len(out.Plan.Tasks) != 1 || out.Plan.Tasks[0].TaskID != "a#build" || out.Plan.Tasks[0].Cache != "miss" {
		t.Errorf("plan = %+v; want a#build alone, a miss", out.Plan.Tasks)
	}
	if _, err := os.Stat(filepath.Join(e.Root, ".vx", "vx.db")); !os.IsNotExist(err) {
		t.Errorf("planning recorded a history (%v)", err)
	}
	_, err = PlanTasks(context.Background(), e, RunTasksInput{PlanTasksInput: PlanTasksInput{Tasks: []string{"deploy"}}})
	var re *opkit.Refusal
	if !errors.As(err, &re) || !strings.Contains(re.Msg, "deploy") {
		t.Errorf("unknown task: %v; want a refusal naming it", err)
	}
}
