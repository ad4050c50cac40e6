package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/protocol/mcp"
	"github.com/vzn/vx/protocol/wire"
)

// Under mcp.confirm, runTasks shows a person the plan and runs it only
// when they accept: in the session era through elicitation/create on the
// request's stream, in 2026-07-28 through an input_required result the
// client retries with the answer. The plan is issued first, so what runs
// is exactly what was shown, re-checked when it runs.

// confirmKey names the one question (the input request's key and the
// form's field).
const confirmKey = "confirm"

var confirmSchema = json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean","title":"Run these tasks","description":"true runs exactly the tasks shown; false runs nothing","default":true}},"required":["confirm"]}`)

// maxShown bounds the tasks a confirmation lists by name.
const maxShown = 20

var errNoAsking = errors.New("this workspace asks a person to confirm before tasks run (mcp.confirm in vx.workspace.json), and this client cannot ask (it declared no elicitation): call planTasks, show the plan to the user, then call runTasks with {\"planId\": …} once they agree. Nothing ran")

// confirmRun serves runTasks under mcp.confirm.
func confirmRun(ctx context.Context, call *mcpserver.Call, e *ops.Env, store *plans.Store, id, origin string, in ops.RunTasksInput, allowed func(string) bool, onEvent func(wire.Event)) (any, error) {
	if call.Modern != nil && call.Modern.RequestState != "" {
		p, err := store.Lookup(call.Modern.RequestState)
		if err != nil {
			return nil, err
		}
		if p.Origin != origin {
			return nil, fmt.Errorf("requestState %s belongs to another runTasks call (its arguments differ); call runTasks again without it. Nothing ran", p.ID)
		}
		raw, ok := call.Modern.InputResponses[confirmKey]
		if !ok {
			return askModern(e, p), nil // the answer is missing: ask again
		}
		var res mcp.ElicitResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("inputResponses.%s is not an elicitation result ({action, content}): %v. Nothing ran", confirmKey, err)
		}
		return decide(ctx, e, store, p, &res, allowed, onEvent)
	}
	canAsk := call.Elicit != nil || (call.Modern != nil && call.Modern.CanElicit)
	if !canAsk {
		if id != "" {
			// The two-call flow: the plan went to a person between the calls.
			return store.Apply(ctx, e, id, allowed, onEvent)
		}
		return nil, errNoAsking
	}
	var p *plans.Plan
	var err error
	if id != "" {
		p, err = store.Lookup(id)
	} else {
		var out *ops.PlanTasksOutput
		if out, err = store.Plan(ctx, e, in, origin); err == nil {
			p, err = store.Lookup(out.PlanID)
		}
	}
	if err != nil {
		return nil, err
	}
	if call.Modern != nil {
		if p.Origin != origin {
			// A planTasks plan confirmed through a retry: tie it to this call.
			p, err = reissue(ctx, e, store, p, origin)
			if err != nil {
				return nil, err
			}
		}
		return askModern(e, p), nil
	}
	ectx, cancel := context.WithDeadline(ctx, p.Expires)
	defer cancel()
	res, err := call.Elicit(ectx, confirmParams(e, p))
	if err != nil {
		return nil, fmt.Errorf("asking the user to confirm plan %s failed, nothing ran: %w", p.ID, err)
	}
	return decide(ctx, e, store, p, res, allowed, onEvent)
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

func askModern(e *ops.Env, p *plans.Plan) *mcpserver.InputRequired {
	return &mcpserver.InputRequired{
		Requests: map[string]mcp.InputRequest{confirmKey: {Method: mcp.MethodElicit, Params: confirmParams(e, p)}},
		State:    p.ID,
	}
}

// decide runs the plan when the person accepted, and otherwise says that
// nothing ran and why.
func decide(ctx context.Context, e *ops.Env, store *plans.Store, p *plans.Plan, res *mcp.ElicitResult, allowed func(string) bool, onEvent func(wire.Event)) (any, error) {
	switch res.Action {
	case mcp.ElicitAccept:
		var yes bool
		if raw, ok := res.Content[confirmKey]; !ok || json.Unmarshal(raw, &yes) != nil {
			return nil, fmt.Errorf("the confirmation of plan %s came back without a boolean %q; nothing ran", p.ID, confirmKey)
		}
		if !yes {
			return nil, fmt.Errorf("the user answered not to run plan %s: nothing ran", p.ID)
		}
		return store.Apply(ctx, e, p.ID, allowed, onEvent)
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
