package ops

import (
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/protocol/wire"
)

// outcomes reads what Deltas compares from recorded executions.
func outcomes(xs []history.Execution) []wire.TaskOutcome {
	out := make([]wire.TaskOutcome, len(xs))
	for i, x := range xs {
		out[i] = wire.TaskOutcome{TaskID: x.TaskID, Status: x.Status, Cache: x.Cache, Key: x.Key, DurationMs: x.DurationMs}
	}
	return out
}
