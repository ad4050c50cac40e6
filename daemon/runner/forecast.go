package runner

import (
	"context"
	"time"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/workspace"
)

// Forecast predicts how long a run has left from the history's p50s, the
// way a dry run predicts its wall time (criticalPath): what is done takes
// nothing, a running task its p50 less its elapsed time, the rest their
// p50s, and the run ends no sooner than its remaining work spread over its
// workers. A live view asks it while the run goes on.
type Forecast struct {
	g       *workspace.Graph
	workers int
	hist    *history.Store
	p50     map[string]int64
}

// Load reads the p50s of the run's tasks. It is called at most once,
// before P50 and Left, and only while the run lasts (the history closes
// after it).
func (f *Forecast) Load(ctx context.Context) error {
	nodes := f.g.Executable()
	ids := make([]string, 0, len(nodes))
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}
	p50, err := f.hist.P50s(ctx, ids)
	if err != nil {
		return err
	}
	f.p50 = p50
	return nil
}

// P50 is a task's median duration in the history, if it has one.
func (f *Forecast) P50(id string) (time.Duration, bool) {
	ms, ok := f.p50[id]
	return time.Duration(ms) * time.Millisecond, ok
}

// Left is the predicted time until the run ends, given whether each task
// is done and each running task's elapsed time, and how many tasks yet to
// end have no p50 (the prediction leaves them out).
func (f *Forecast) Left(done func(id string) bool, running map[string]time.Duration) (left time.Duration, unknown int) {
	est := make(map[string]int64, len(f.g.Nodes))
	var work int64
	for _, n := range f.g.Nodes {
		if n.Def.NoOp() || done(n.ID) {
			continue
		}
		p50, ok := f.p50[n.ID]
		if !ok {
			unknown++
			continue
		}
		if el, ok := running[n.ID]; ok {
			p50 = max(0, p50-el.Milliseconds())
		}
		est[n.ID] = p50
		work += p50
	}
	_, wall := criticalPath(f.g, est)
	if w := int64(max(1, f.workers)); work/w > wall {
		wall = work / w
	}
	return time.Duration(wall) * time.Millisecond, unknown
}
