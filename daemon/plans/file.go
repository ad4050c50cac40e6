package plans

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/vzn/vx/opkit"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// A plan file: vx run --dry=json writes a plan stamped with its
// selection, prerequisites and expiry (Document); vx run --plan FILE
// reads it (ReadFile) and runs it only when it has not expired and
// nothing it was made against has moved (CheckFile).

// maxFile bounds a plan file ReadFile reads.
const maxFile = 64 << 20

// Document is the plan of in over e's model as vx run --dry=json writes
// it, stamped with what CheckFile checks.
func Document(ctx context.Context, e *ops.Env, in ops.ExecuteInput) (*wire.Plan, error) {
	m, err := e.CurrentModel()
	if err != nil {
		return nil, err
	}
	plan, err := ops.Plan(ctx, e, in)
	if err != nil {
		return nil, err
	}
	if err := stamp(ctx, m, in, plan); err != nil {
		return nil, err
	}
	return plan, nil
}

// stamp adds to a dry run's plan what CheckFile checks: the selection,
// the prerequisites and the expiry (mcp.planTtl from now).
func stamp(ctx context.Context, m *workspace.Model, in ops.ExecuteInput, p *wire.Plan) error {
	pr, err := prerequisitesOf(ctx, m.Root, m.Files, p)
	if err != nil {
		return err
	}
	made := time.Now().UTC()
	exp := made.Add(m.Config.MCP.PlanTTLDuration())
	p.Request = &wire.RunRequest{Selection: in.Selection}
	p.Prerequisites, p.MadeAt, p.ExpiresAt = pr, &made, &exp
	return nil
}

// ReadFile reads the plan file name, refusing (a *opkit.Refusal,
// exit 2) one that is larger than a plan may be, or is not a plan
// vx run --dry=json wrote (unknown fields, no request, prerequisites or
// expiry).
func ReadFile(name string) (*wire.Plan, error) {
	refuse := func(format string, a ...any) error {
		return &opkit.Refusal{Msg: fmt.Sprintf(format, a...)}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, refuse("reading the plan: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, refuse("reading the plan %s: %v", name, err)
	}
	if len(b) > maxFile {
		return nil, refuse("%s is larger than a plan may be (%d MiB)", name, maxFile>>20)
	}
	var p wire.Plan
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, refuse("%s is not a plan (%s): write one with `vx run TASK... --dry=json > %s`", name, opkit.JSONError(err, &p), name)
	}
	if p.Request == nil || len(p.Request.Tasks) == 0 || p.Prerequisites == nil || p.MadeAt == nil || p.ExpiresAt == nil {
		return nil, refuse("%s lacks the request, prerequisites or expiry that vx run --dry=json writes: plan again with `vx run TASK... --dry=json > %s`", name, name)
	}
	return &p, nil
}

// CheckFile refuses the plan p read from the file name when it expired
// or anything it was planned against moved, planning in (p's selection,
// run as in says) again over e to compare. Nothing runs either way.
func CheckFile(ctx context.Context, e *ops.Env, in ops.ExecuteInput, p *wire.Plan, name string) error {
	now := time.Now()
	if !now.Before(*p.ExpiresAt) {
		return fmt.Errorf("the plan in %s expired %s ago (made %s ago; plans last mcp.planTtl): nothing ran; plan again with vx run --dry=json",
			name, now.Sub(*p.ExpiresAt).Round(time.Second), now.Sub(*p.MadeAt).Round(time.Second))
	}
	m, err := e.CurrentModel()
	if err != nil {
		return err
	}
	// The check plans on its own: the run keeps what was started early.
	chk := in
	chk.Early, chk.Changes, chk.Repeat = nil, nil, nil
	cur, err := ops.Plan(ctx, e, chk)
	if err != nil {
		return err
	}
	pr, err := prerequisitesOf(ctx, e.Root, m.Files, cur)
	if err != nil {
		return err
	}
	moved := append(shownMoved(p.Tasks, cur.Tasks), moved(p.Prerequisites, pr)...)
	if len(moved) > 0 {
		return fmt.Errorf("the plan in %s no longer matches the workspace, nothing ran: %s; plan again with vx run --dry=json", name, strings.Join(moved, "; "))
	}
	return nil
}

// shownMoved lists how the tasks a plan file shows (what a person reads:
// each task, its key and command) differ from the tasks its request
// selects now. The file's request is what runs, so a file whose shown
// tasks are not its request's (edited by hand, or tampered with) is
// refused rather than running something it does not show.
func shownMoved(shown, now []wire.PlanTask) []string {
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
