package plans

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// A plan file: vx run --dry=json writes a plan stamped with its
// selection, prerequisites and expiry; vx run --plan FILE checks it.

// Stamp adds to a dry run's plan what vx run --plan checks: the
// selection, the prerequisites and the expiry (mcp.planTtl from now).
func Stamp(ctx context.Context, m *workspace.Model, in ops.ExecuteInput, p *wire.Plan) error {
	pr, err := PrerequisitesOf(ctx, m.Root, m.Files, p)
	if err != nil {
		return err
	}
	made := time.Now().UTC()
	exp := made.Add(m.Config.MCP.PlanTTLDuration())
	p.Request = &wire.RunRequest{Selection: in.Selection}
	p.Prerequisites, p.MadeAt, p.ExpiresAt = pr, &made, &exp
	return nil
}

// ShownMoved lists how the tasks a plan file shows (what a person reads:
// each task, its key and command) differ from the tasks its request
// selects now. The file's request is what runs, so a file whose shown
// tasks are not its request's (edited by hand, or tampered with) is
// refused rather than running something it does not show.
func ShownMoved(shown, now []wire.PlanTask) []string {
	was := make(map[string]wire.PlanTask, len(shown))
	for _, t := range shown {
		was[t.TaskID] = t
	}
	var out []string
	for _, t := range now {
		s, ok := was[t.TaskID]
		switch {
		case !ok:
			out = append(out, t.TaskID+" would run but the plan does not show it")
		case s.Key != t.Key:
			out = append(out, t.TaskID+"'s key is not the one the plan shows")
		case s.Command != t.Command:
			out = append(out, fmt.Sprintf("%s's command is %q, not %q as the plan shows", t.TaskID, t.Command, s.Command))
		}
		delete(was, t.TaskID)
	}
	for id := range was {
		out = append(out, id+" is shown in the plan but would not run")
	}
	sort.Strings(out[len(out)-len(was):])
	return out
}
