package ops

import (
	"context"
	"os"
	"sync/atomic"
	"testing"

	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// A run with vxd up asks it once what changed (each question waits on
// the journal's barrier): the repeat's question and the run's files take
// the one answer, the first run (no token saved) and the next ones (the
// token the last run saved) alike; the files still take the journal's
// answer (the second run proves its input unchanged).
func TestARunAsksVXDOnce(t *testing.T) {
	e := executeEnv(t)
	ctx := context.Background()
	var asks atomic.Int32
	var lastEpoch atomic.Value
	src := journal.ChangeSource(func(_ context.Context, epoch string, seq uint64) (*wire.Changes, error) {
		asks.Add(1)
		lastEpoch.Store(epoch)
		ans := &wire.Changes{Root: e.Root, Version: version.Version, Epoch: "e1", Seq: 4}
		if epoch == "e1" {
			ans.Complete = true
		} else {
			ans.Reason = "no token was given"
		}
		return ans, nil
	})
	for run := 1; run <= 3; run++ {
		asks.Store(0)
		in := ExecuteInput{Options: runner.Options{Selection: wire.Selection{Tasks: []string{"build"}}, Command: []string{"run", "build"},
			Environ: []string{"PATH=" + os.Getenv("PATH")}}}
		a := NewAhead(e.Root, e.Root, src)
		sum, err := a.Repeat(ctx, in, func() (runner.Output, func()) { return runner.Output{}, func() {} })
		if err != nil {
			t.Fatal(err)
		}
		if sum == nil {
			a.Complete(&in)
			if sum, err = Execute(ctx, e, in); err != nil || !sum.OK {
				t.Fatalf("run %d: %v, %+v", run, err, sum)
			}
		}
		a.Close()
		if n := asks.Load(); n != 1 {
			t.Errorf("run %d asked vxd %d times; want once", run, n)
		}
		if run > 1 && lastEpoch.Load() != "e1" {
			t.Errorf("run %d asked since epoch %q; want the saved token's, e1", run, lastEpoch.Load())
		}
	}
}
