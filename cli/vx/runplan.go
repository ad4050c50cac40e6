package vx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// Plan and apply from the command line: vx run --dry=json writes a plan
// with its selection, prerequisites and expiry; vx run --plan FILE runs
// exactly that plan after checking that nothing it was made against has
// moved and that it has not expired.

// maxPlanFile bounds a plan file vx run --plan reads.
const maxPlanFile = 64 << 20

// readPlanFile reads vx run --plan FILE, refusing a selection beside it
// and a file that is not a plan vx run --dry=json wrote. nil without
// --plan.
func readPlanFile(a *cmdline.Args) (*wire.Plan, error) {
	if !a.Has("plan") {
		return nil, nil
	}
	name := a.Str("plan")
	if len(a.Pos()) > 0 {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: --plan runs the plan's tasks, not the command line's (got %q)", a.Pos()[0]))
	}
	for _, f := range []string{"filter", "affected", "force", "dry", "input"} {
		if a.Has(f) {
			return nil, cmdline.UsageError(fmt.Sprintf("vx run: --%s and --plan both select; the plan holds its selection", f))
		}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: reading the plan: %v", err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPlanFile+1))
	if err != nil {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: reading the plan %s: %v", name, err))
	}
	if len(b) > maxPlanFile {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: %s is larger than a plan may be (%d MiB)", name, maxPlanFile>>20))
	}
	var p wire.Plan
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: %s is not a plan (%v): write one with `vx run TASK... --dry=json > %s`", name, err, name))
	}
	if p.Request == nil || len(p.Request.Tasks) == 0 || p.Prerequisites == nil || p.MadeAt == nil || p.ExpiresAt == nil {
		return nil, cmdline.UsageError(fmt.Sprintf("vx run: %s lacks the request, prerequisites or expiry that vx run --dry=json writes: plan again with `vx run TASK... --dry=json > %s`", name, name))
	}
	return &p, nil
}

// checkPlan refuses (exit 1) a plan that expired or whose prerequisites
// moved, planning its selection again to compare; nothing runs then.
func checkPlan(ctx context.Context, e *ops.Env, m *workspace.Model, in ops.ExecuteInput, p *wire.Plan, name string) error {
	now := time.Now()
	if !now.Before(*p.ExpiresAt) {
		return fmt.Errorf("vx run: the plan in %s expired %s ago (made %s ago; plans last mcp.planTtl): nothing ran; plan again with vx run --dry=json",
			name, now.Sub(*p.ExpiresAt).Round(time.Second), now.Sub(*p.MadeAt).Round(time.Second))
	}
	// The check plans on its own: the run keeps what was started early.
	chk := in
	chk.Early, chk.Changes, chk.Repeat = nil, nil, nil
	cur, err := ops.Plan(ctx, e, chk)
	if err != nil {
		return runRefusal(err)
	}
	pr, err := plans.PrerequisitesOf(ctx, e.Root, m.Files, cur)
	if err != nil {
		return err
	}
	moved := append(plans.ShownMoved(p.Tasks, cur.Tasks), plans.Moved(p.Prerequisites, pr)...)
	if len(moved) > 0 {
		return fmt.Errorf("vx run: the plan in %s no longer matches the workspace, nothing ran: %s; plan again with vx run --dry=json", name, strings.Join(moved, "; "))
	}
	return nil
}
