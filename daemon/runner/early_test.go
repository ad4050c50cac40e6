package runner_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// TestEarlyStartRunsTheSame: a run prepared from StartEarly (listing,
// stat cache and history opened before the model) hits what a run
// without it cached, with the same keys, and records its executions; a
// workspace where vx never ran starts nothing early.
func TestEarlyStartRunsTheSame(t *testing.T) {
	ctx := context.Background()
	m := setup(t)
	if e := runner.StartEarly(ctx, m.Root, zerolog.Nop(), true); e != nil {
		e.Close()
		t.Fatalf("StartEarly started work where vx never ran")
	}
	if _, err := os.Stat(layout.Dir(m.Root)); err == nil {
		t.Fatalf("StartEarly created %s", layout.Dir(m.Root))
	}
	run := func(early *runner.Early) *wire.RunSummary {
		t.Helper()
		o := &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build"}}, Environ: []string{"PATH=" + os.Getenv("PATH")}, Command: []string{"run", "build"}, Early: early}
		p, err := runner.Prepare(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := runner.Execute(ctx, p, o, runner.Output{W: io.Discard})
		if err != nil || !sum.OK {
			t.Fatalf("run: %v %+v", err, sum)
		}
		return sum
	}
	cold := run(nil)
	early := runner.StartEarly(ctx, m.Root, zerolog.Nop(), true)
	if early == nil {
		t.Fatal("StartEarly started nothing in a workspace vx ran in")
	}
	warm := run(early)
	early.Close()
	keys := map[string]string{}
	for _, row := range cold.Tasks {
		keys[row.TaskID] = row.Key
	}
	for _, row := range warm.Tasks {
		if row.Cache != wire.CacheHit || row.Key != keys[row.TaskID] {
			t.Errorf("%s: %s with key %s, want a hit with %s", row.TaskID, row.Cache, row.Key, keys[row.TaskID])
		}
	}
	h, err := history.OpenReadOnly(ctx, history.Path(m.Root), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	execs, err := h.Executions(ctx, warm.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(execs) != len(warm.Tasks) {
		t.Errorf("the early-started run recorded %d executions, want %d", len(execs), len(warm.Tasks))
	}
}
