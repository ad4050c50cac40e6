package ops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/repeat"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

// executeEnv is a workspace of one project whose build writes an output
// and whose check fails with code 3.
func executeEnv(t *testing.T) *Env {
	t.Helper()
	return newEnv(t, []string{"PATH=" + os.Getenv("PATH")}, map[string]string{
		"vx.workspace.json": `{"projects": ["pkgs/*"], "tasks": {
			"build": {"command": "echo built > out.txt && echo building", "outputs": ["out.txt"]},
			"check": {"command": "echo checking; exit 3"}}}`,
		"pkgs/a/package.json": `{"name": "a"}`,
	})
}

// TestExecuteAndPlan: Plan predicts without executing or recording;
// Execute runs the tasks, prints their lines, reports events, records the
// command it was given, and a second Execute is a cache hit that Plan
// then predicts; a failing task is a summary with its exit code, an
// unknown one a refusal (exit 2) before anything ran.
func TestExecuteAndPlan(t *testing.T) {
	e := executeEnv(t)
	ctx := context.Background()
	in := ExecuteInput{Options: runner.Options{Selection: wire.Selection{Tasks: []string{"build"}}, Command: []string{"run", "build"}, Environ: []string{"PATH=" + os.Getenv("PATH")}}}

	plan, err := Plan(ctx, e, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Tasks) != 1 || plan.Tasks[0].TaskID != "a#build" || plan.Tasks[0].Cache != wire.CacheMiss {
		t.Errorf("plan before any run: %+v; want a#build, a miss", plan.Tasks)
	}
	if _, err := os.Stat(filepath.Join(e.Root, "pkgs", "a", "out.txt")); !os.IsNotExist(err) {
		t.Errorf("Plan executed the task (out.txt: %v)", err)
	}

	var out bytes.Buffer
	var mu sync.Mutex
	var events []string
	in.Output = runner.Output{W: &out, Events: func(ev wire.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, ev.Type)
	}}
	sum, err := Execute(ctx, e, in)
	if err != nil {
		t.Fatal(err)
	}
	if sum.ExitCode != 0 || sum.Command != "vx run build" || len(sum.Tasks) != 1 || sum.Tasks[0].Status != wire.StatusPassed {
		t.Errorf("first run: exit %d, command %q, tasks %+v", sum.ExitCode, sum.Command, sum.Tasks)
	}
	if !strings.Contains(out.String(), "a#build: building") {
		t.Errorf("the task's line was not printed with its prefix:\n%s", out.String())
	}
	mu.Lock()
	if len(events) < 2 || events[0] != wire.EventRunStarted || events[len(events)-1] != wire.EventRunFinished {
		t.Errorf("events %q; want run.started first and run.finished last", events)
	}
	mu.Unlock()

	in.Output = runner.Output{}
	if sum, err = Execute(ctx, e, in); err != nil {
		t.Fatal(err)
	}
	if sum.Totals.Cached != 1 || sum.Tasks[0].Cache != wire.CacheHit {
		t.Errorf("second run: %+v; want a#build a cache hit", sum.Tasks)
	}
	if plan, err = Plan(ctx, e, in); err != nil || plan.Tasks[0].Cache != wire.CacheHit {
		t.Errorf("plan after the run: %+v, %v; want a hit", plan, err)
	}
	if plan, err = Plan(ctx, e, ExecuteInput{Options: runner.Options{Selection: wire.Selection{Tasks: []string{"build"}, Force: true}}}); err != nil || plan.Tasks[0].Cache != wire.CacheMiss {
		t.Errorf("plan with Force: %+v, %v; want a miss", plan, err)
	}

	sum, err = Execute(ctx, e, ExecuteInput{Options: runner.Options{Selection: wire.Selection{Tasks: []string{"check"}}, Command: []string{"run", "check"}}})
	if err != nil || sum.ExitCode == 0 || sum.Tasks[0].Status != wire.StatusFailed || sum.Tasks[0].ExitCode == nil || *sum.Tasks[0].ExitCode != 3 {
		t.Errorf("failing task: %+v, %v; want a failed summary with the task's code 3", sum, err)
	}

	for _, op := range []func() error{
		func() error {
			_, err := Execute(ctx, e, ExecuteInput{Options: runner.Options{Selection: wire.Selection{Tasks: []string{"deploy"}}}})
			return err
		},
		func() error {
			_, err := Plan(ctx, e, ExecuteInput{Options: runner.Options{Selection: wire.Selection{Tasks: []string{"deploy"}}}})
			return err
		},
	} {
		var re *opkit.Refusal
		if err := op(); !errors.As(err, &re) || re.Arg != "" || !strings.Contains(re.Msg, "deploy") {
			t.Errorf("unknown task: %v; want a refusal (exit 2) naming it", err)
		}
	}
}

// TestAheadComplete: what vx run did before its workspace loaded is handed
// to the run: vxd's change journal only when vxd answered the repeat's
// question (a silent vxd is not waited for a second time), and the base
// its own memo is left on; without a workspace root nothing is.
func TestAheadComplete(t *testing.T) {
	src := hashing.ChangeSource(func(context.Context, string, uint64) (*wire.Changes, error) { return nil, nil })
	base := &repeat.Base{}
	for _, tc := range []struct {
		name    string
		answer  repeat.Answer
		changes bool
	}{
		{"vxd answered", repeat.Answer{Base: base}, true},
		{"vxd was silent", repeat.Answer{Silent: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAhead(t.TempDir(), "", src)
			a.answer = tc.answer
			var in ExecuteInput
			a.Complete(&in)
			if (in.Changes != nil) != tc.changes || in.Repeat != tc.answer.Base {
				t.Errorf("changes set %v, repeat base %p; want changes %v, base %p", in.Changes != nil, in.Repeat, tc.changes, tc.answer.Base)
			}
		})
	}
	var none *Ahead
	var in ExecuteInput
	none.Complete(&in)
	none.Close()
	if in.Changes != nil || in.Repeat != nil || in.Early != nil {
		t.Error("a nil Ahead changed the input")
	}
}
