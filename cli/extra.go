package cli

import (
	"context"

	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/tools"
)

// ExtraTools are the daemon's tools for the adoption verbs (lock, init,
// docs) and the latest run, adapters over the same functions those verbs
// call.
func ExtraTools(e *ops.Env) []tools.Def {
	return []tools.Def{
		tools.LastRunTool(e),
		tools.Def{Name: "checkLock", Title: "Check the config lock", ReadOnly: true, Output: &lockfile.CheckResult{},
			Description: "Is the config lock current? vx lock --check --format json: upToDate, audited, notAudited, and each drift in problems (task id, field, locked value, current value; secrets masked); exitCode 1 on drift.",
			Run: func(ctx context.Context, _ *mcpserver.Call, _ tools.Values) (any, error) {
				m, err := e.CurrentModel()
				if err != nil {
					return nil, err
				}
				return lockfile.Check(m, e.Masker)
			}},
	}
}
