package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

// Under mcp.confirm, runTasks shows a person the plan and runs it only
// when they accept: in the session era through elicitation/create on the
// request's stream, in the stateless era through an input_required result the
// client retries with the answer. The plan is issued first, so what runs
// is exactly what was shown, re-checked when it runs.

// confirmKey names the one question (the input request's key and the
// form's field).
const confirmKey = "confirm"

var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean",` +
	`"title":"Run these tasks","description":"true runs exactly the tasks shown; false runs nothing",` +
	`"default":true}},"required":["confirm"]}`)

// maxShown bounds the tasks a confirmation lists by name.
const maxShown = 20

// runCall is one runTasks call where vxd keeps plans.
type runCall struct {
	call   *mcpserver.Call
	store  *plans.Store
	runner plans.Runner // with NeedApproval under mcp.confirm
	origin string       // the call's arguments (callOrigin)
	// approveAt says where a person approves a plan outside MCP.
	approveAt func(p *plans.Plan) string
}

// runStep takes the step plans.Decide chose for a runTasks call that
// does not simply run its selection: id is the planId given ("" for a
// selection, in).
func runStep(ctx context.Context, rc *runCall, step plans.Step, id string, in ops.RunTasksInput) (any, error) {
	switch step {
	case plans.StepApply:
		return rc.store.Apply(ctx, rc.runner, id)
	case plans.StepAwait:
		return waitThenApply(ctx, rc, id)
	case plans.StepAnswer:
		return answerStateless(ctx, rc)
	}
	return askToRun(ctx, rc, id, in)
}

// askToRun asks the client's person to confirm the plan id (or, for a
// selection, one made now) and runs it when they accept; a plan a person
// approved already runs at once.
func askToRun(ctx context.Context, rc *runCall, id string, in ops.RunTasksInput) (any, error) {
	call, store, e := rc.call, rc.store, rc.runner.Env
	var p *plans.Plan
	var err error
	if id != "" {
		p, err = store.Lookup(id)
	} else {
		var out *ops.PlanTasksOutput
		if out, err = store.Plan(ctx, e, in, rc.origin); err == nil {
			p, err = store.Lookup(out.PlanID)
		}
	}
	if err != nil {
		return nil, err
	}
	if store.Approved(p) != "" {
		// A person approved it already (vx approve, the status page).
		return store.Apply(ctx, rc.runner, p.ID)
	}
	if call.Stateless != nil {
		if p.Origin != rc.origin {
			// A planTasks plan confirmed through a retry: tie it to this call.
			p, err = reissue(ctx, e, store, p, rc.origin)
			if err != nil {
				return nil, err
			}
		}
		return askStateless(e, p), nil
	}
	ectx, cancel := context.WithDeadline(ctx, p.Expires)
	defer cancel()
	res, err := call.Elicit(ectx, confirmParams(e, p))
	if err != nil {
		return nil, fmt.Errorf("asking the user to confirm plan %s failed, nothing ran: %w", p.ID, err)
	}
	return decide(ctx, rc, p, res)
}

// answerStateless serves a stateless retry carrying the person's answer.
func answerStateless(ctx context.Context, rc *runCall) (any, error) {
	m := rc.call.Stateless
	p, err := rc.store.Lookup(m.RequestState)
	if err != nil {
		return nil, err
	}
	if p.Origin != rc.origin {
		return nil, fmt.Errorf("requestState %s belongs to another runTasks call (its arguments differ); call runTasks again without it. Nothing ran", p.ID)
	}
	raw, ok := m.InputResponses[confirmKey]
	if !ok {
		return askStateless(rc.runner.Env, p), nil // the answer is missing: ask again
	}
	var res mcp.ElicitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("inputResponses.%s is not an elicitation result ({action, content}): %v. Nothing ran", confirmKey, err)
	}
	return decide(ctx, rc, p, &res)
}

// waitThenApply applies plan id once a person approved it outside MCP:
// the call says where (a progress notification) and waits, at most until
// the plan expires.
func waitThenApply(ctx context.Context, rc *runCall, id string) (any, error) {
	if err := awaitApproval(ctx, rc.call, rc.store, id, rc.approveAt); err != nil {
		return nil, err
	}
	return rc.store.Apply(ctx, rc.runner, id)
}

// awaitApproval returns once a person approved plan id: at once when
// they have, else after saying where (a progress notification) and
// waiting, at most until the plan expires.
func awaitApproval(ctx context.Context, call *mcpserver.Call, store *plans.Store, id string, where func(*plans.Plan) string) error {
	p, err := store.Lookup(id)
	if err != nil {
		return err
	}
	if store.Approved(p) != "" {
		return nil
	}
	call.Progress(0, 0, where(p))
	return store.WaitApproved(ctx, p)
}

// approveWhere says where a person approves plan id, given the status
// page's address and the workspace.
func approveWhere(id, root, page string, expires time.Time) string {
	return fmt.Sprintf("plan %s awaits a person's approval (mcp.confirm): run `vx approve %s` in a "+
		"terminal in %s, or approve it on the status page %s (log in to approve with the address `vx approve --page` "+
		"prints); runTasks {planId} waits for it until %s, when the plan expires",
		id, id, root, page, expires.UTC().Format(time.RFC3339))
}

// reissue plans p's selection again under origin (the retry is checked
// against it).
func reissue(ctx context.Context, e *ops.Env, store *plans.Store, p *plans.Plan, origin string) (*plans.Plan, error) {
	out, err := store.Plan(ctx, e, p.Input, origin)
	if err != nil {
		return nil, err
	}
	return store.Lookup(out.PlanID)
}

// callOrigin identifies a runTasks call by its arguments, whatever their
// order and spacing.
func callOrigin(args json.RawMessage) string {
	var v map[string]any
	_ = json.Unmarshal(args, &v)
	b, _ := json.Marshal(v)
	return "runTasks " + string(b)
}

func askStateless(e *ops.Env, p *plans.Plan) *mcpserver.InputRequired {
	return &mcpserver.InputRequired{
		Requests: map[string]mcp.InputRequest{confirmKey: {Method: mcp.MethodElicit, Params: confirmParams(e, p)}},
		State:    p.ID,
	}
}

// decide runs the plan when the person accepted, and otherwise says that
// nothing ran and why.
func decide(ctx context.Context, rc *runCall, p *plans.Plan, res *mcp.ElicitResult) (any, error) {
	switch res.Action {
	case mcp.ElicitAccept:
		var yes bool
		if raw, ok := res.Content[confirmKey]; !ok || json.Unmarshal(raw, &yes) != nil {
			return nil, fmt.Errorf("the confirmation of plan %s came back without a boolean %q; nothing ran", p.ID, confirmKey)
		}
		if !yes {
			return nil, fmt.Errorf("the user answered not to run plan %s: nothing ran", p.ID)
		}
		if _, err := rc.store.Approve(p.ID, plans.ByElicitation); err != nil {
			return nil, err
		}
		return rc.store.Apply(ctx, rc.runner, p.ID)
	case mcp.ElicitDecline:
		return nil, fmt.Errorf("the user declined to run plan %s: nothing ran", p.ID)
	case mcp.ElicitCancel:
		return nil, fmt.Errorf("the user dismissed the confirmation of plan %s without answering: nothing ran", p.ID)
	}
	return nil, fmt.Errorf("the confirmation of plan %s came back with action %q (want accept, decline or cancel): nothing ran", p.ID, res.Action)
}

// confirmParams shows the plan: its tasks with their predicted cache
// outcome, how many would execute, and the predicted wall time.
func confirmParams(e *ops.Env, p *plans.Plan) mcp.ElicitParams {
	var b strings.Builder
	tasks := p.Plan.Tasks
	hits := 0
	for _, t := range tasks {
		if t.Cache == "hit" {
			hits++
		}
	}
	fmt.Fprintf(&b, "Run %d task(s) in %s? Predicted: %d cache hit(s), %d to execute, about %s wall time.\n",
		len(tasks), e.Root, hits, len(tasks)-hits, (time.Duration(p.Plan.Predicted.WallMs) * time.Millisecond).String())
	for i, t := range tasks {
		if i == maxShown {
			fmt.Fprintf(&b, "… and %d more\n", len(tasks)-maxShown)
			break
		}
		fmt.Fprintf(&b, "- %s (%s): %s\n", t.TaskID, t.Cache, t.Command)
	}
	fmt.Fprintf(&b, "Plan %s, valid until %s.", p.ID, p.Expires.UTC().Format(time.RFC3339))
	return mcp.ElicitParams{Mode: "form", Message: e.Masker.String(b.String()), RequestedSchema: confirmSchema}
}
