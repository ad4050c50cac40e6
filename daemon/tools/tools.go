// Package tools is vxd's MCP catalog: every tool, resource and prompt the
// daemon serves, each a thin adapter that checks its arguments (never
// coercing them) and calls one operation of package ops.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/wire"
)

// Config is what the catalog needs beyond the operations' Env.
type Config struct {
	VX string // the vx executable runTasks and planTasks start
	// Plans, when set, keeps planTasks' plans for runTasks {planId}
	// (plan.go); without it planTasks only plans.
	Plans *plans.Store
	// OnEvent receives runTasks' run events (for the live feed).
	OnEvent func(wire.Event)
	// PageURL is the status page's address, where (besides `vx approve`)
	// a person approves plans under mcp.confirm; nil outside vxd.
	PageURL func() string
}

// approveAt says where a person approves plan id outside MCP.
func (cfg Config) approveAt(e *ops.Env, p *plans.Plan) string {
	page := "(no status page: vxd is not serving one)"
	if cfg.PageURL != nil {
		page = cfg.PageURL()
	}
	return approveWhere(p.ID, e.Root, page, p.Expires)
}

// approveWith says where a person approves plan id, just issued.
func (cfg Config) approveWith(e *ops.Env, id string) (string, error) {
	p, err := cfg.Plans.Lookup(id)
	if err != nil {
		return "", err
	}
	return cfg.approveAt(e, p), nil
}

// tool serves one of vx's operations as an MCP tool
// (mcpserver.OperationTool) over e, with spec's adjustments; answers that
// depend only on the model are kept until a reload.
func tool(op *ops.Operation, e *ops.Env, spec mcpserver.OperationOptions) mcpserver.Tool {
	if spec.Run != nil {
		return mcpserver.OperationTool(op.Bind(e), &spec)
	}
	memo := &answerMemo{env: e}
	spec.Run = func(ctx context.Context, call *mcpserver.Call, in any) (any, error) {
		out, err := op.Call(ctx, e, in)
		if err != nil || !op.ModelOnly(in) {
			return out, err
		}
		return memo.put(call.Arguments, out)
	}
	t := mcpserver.OperationTool(op.Bind(e), &spec)
	decodeAndAnswer := t.Handler
	t.Handler = func(ctx context.Context, call *mcpserver.Call) (any, error) {
		// Kept answers were computed from these very arguments after they
		// decoded and passed the checks (with this catalog, on this model).
		if enc, ok := memo.get(call.Arguments); ok {
			return enc, nil
		}
		return decodeAndAnswer(ctx, call)
	}
	return t
}

// answerMemo keeps encoded answers of one model-only tool, by arguments,
// for as long as the model they were computed from is current. It keeps
// them masked (the env's masker is the one vxd's MCP server masks with),
// and hands them to the server as mcpserver.Masked, so that a hit costs no
// masking pass; an answer kept before the masker learnt more values is
// masked again on its next hit.
type answerMemo struct {
	env   *ops.Env
	mu    sync.Mutex
	model *workspace.Model
	m     map[string]memoAnswer
	bytes int // of the kept answers and their keys
}

// memoAnswer is a kept answer, masked at the masker's generation gen.
type memoAnswer struct {
	b   mcpserver.Masked
	gen uint64
}

// A memo keeps at most memoEntries answers and memoBytes of them, so that
// however many different arguments a client sends (a thousand filters
// each naming most of a 1,000-project workspace: 180 KB answers) the memo
// stays a few MiB of vxd's RSS.
const (
	memoEntries = 256
	memoBytes   = 4 << 20
)

func (a *answerMemo) get(args json.RawMessage) (any, bool) {
	m, err := a.env.CurrentModel()
	if err != nil {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.model != m {
		a.model, a.m, a.bytes = m, map[string]memoAnswer{}, 0
	}
	e, ok := a.m[string(args)]
	if !ok {
		return nil, false
	}
	if g := a.env.Masker.Generation(); g != e.gen {
		old := len(e.b)
		e = memoAnswer{mcpserver.Masked(a.env.Masker.JSON(e.b)), g}
		a.m[string(args)] = e
		a.bytes += len(e.b) - old
	}
	return e.b, true
}

func (a *answerMemo) put(args json.RawMessage, out any) (any, error) {
	enc, err := mcpserver.EncodeResult(out)
	if err != nil {
		return out, nil
	}
	gen := a.env.Masker.Generation() // before masking: a value added meanwhile masks it again
	e := memoAnswer{mcpserver.Masked(a.env.Masker.JSON(enc)), gen}
	m, _ := a.env.CurrentModel()
	a.mu.Lock()
	defer a.mu.Unlock()
	size := len(args) + len(e.b)
	if _, kept := a.m[string(args)]; a.model == m && !kept && size <= memoBytes {
		// Full: kept answers (whichever the map yields) make room, so
		// that the arguments asked now, a batch repeating them included,
		// share one copy rather than each computing its own.
		for k, old := range a.m {
			if len(a.m) < memoEntries && a.bytes+size <= memoBytes {
				break
			}
			delete(a.m, k)
			a.bytes -= len(k) + len(old.b)
		}
		a.m[string(args)] = e
		a.bytes += size
	}
	return e.b, nil
}

// Catalog lists every operation as a tool for the env's current
// configuration: runTasks is absent when mcp.run is false.
func Catalog(e *ops.Env, cfg Config) []mcpserver.Tool {
	var out []mcpserver.Tool
	for _, op := range ops.Operations() {
		switch op.Name {
		case ops.OpPlanTasks:
			out = append(out, tool(op, e, planTasksSpec(e, cfg)))
		case ops.OpRunTasks:
			if spec, ok := runTasksSpec(e, cfg); ok {
				out = append(out, tool(op, e, spec))
			}
		case ops.OpPruneCache:
			out = append(out, tool(op, e, pruneCacheSpec(e, cfg)))
		default:
			if op.CLIOnly {
				continue // a person's act (vx approve): never a tool
			}
			out = append(out, tool(op, e, mcpserver.OperationOptions{}))
		}
	}
	return out
}

// planTasksSpec keeps the plan when vxd has a plan store.
func planTasksSpec(e *ops.Env, cfg Config) mcpserver.OperationOptions {
	if cfg.Plans == nil {
		return mcpserver.OperationOptions{}
	}
	return mcpserver.OperationOptions{MoreDescription: " vxd keeps the plan: planId, expiresAt and " +
		"prerequisites (config file hashes, vx.lock, git HEAD and uncommitted state, each task's key) let runTasks " +
		"{planId} run exactly it.",
		Run: func(ctx context.Context, _ *mcpserver.Call, v any) (any, error) {
			in := ops.RunTasksInput{PlanTasksInput: *v.(*ops.PlanTasksInput)}
			in.VX = cfg.VX
			out, err := cfg.Plans.Plan(ctx, e, in, "planTasks")
			if err != nil {
				return nil, err
			}
			if m, err := e.CurrentModel(); err == nil && m.Config.MCP.Confirm.On {
				if out.ApproveWith, err = cfg.approveWith(e, out.PlanID); err != nil {
					return nil, err
				}
			}
			return out, nil
		}}
}

// runTasksSpec serves runTasks under the workspace's mcp settings: absent
// under mcp.run false, limited to an allow-list, with planId, plans
// required and confirmation as configured.
func runTasksSpec(e *ops.Env, cfg Config) (mcpserver.OperationOptions, bool) {
	m, err := e.CurrentModel()
	if err != nil || !m.Config.MCP.Run.Enabled() {
		return mcpserver.OperationOptions{}, false
	}
	allow := m.Config.MCP.Run
	var allowed func(string) bool
	var desc string
	if !allow.All && allow.Set {
		allowed = allow.Allows
		desc += fmt.Sprintf(" This workspace lets agents run only: %v (their dependsOn still run).", allow.Tasks)
	}
	spec := mcpserver.OperationOptions{}
	if cfg.Plans != nil {
		desc += planDescription(m.Config.MCP.RequirePlan)
		switch {
		case m.Config.MCP.Confirm.Outside:
			desc += " This workspace runs a plan only once a person approved it outside MCP " +
				"(mcp.confirm \"outside\": vx approve or the status page): planTasks, then runTasks {planId}, which waits for " +
				"the approval."
		case m.Config.MCP.Confirm.On:
			desc += " This workspace asks the user to confirm the plan (mcp.confirm) before anything runs."
		}
		spec.Input = reflect.TypeFor[runTasksArgs]()
	}
	spec.MoreDescription = desc
	spec.Run = func(ctx context.Context, call *mcpserver.Call, v any) (any, error) {
		onEvent := progress(call, cfg.OnEvent)
		var in ops.RunTasksInput
		planID := ""
		if a, ok := v.(*runTasksArgs); ok {
			in, planID = a.RunTasksInput, a.PlanID
		} else {
			in = *v.(*ops.RunTasksInput)
		}
		in.VX = cfg.VX
		if cfg.Plans != nil {
			var policy workspace.MCPConfig
			if m, err := e.CurrentModel(); err == nil {
				policy = m.Config.MCP
			}
			rc := &runCall{call: call, store: cfg.Plans, origin: callOrigin(call.Arguments),
				runner:    plans.Runner{Env: e, Allowed: allowed, OnEvent: onEvent, NeedApproval: policy.Confirm.On},
				approveAt: func(p *plans.Plan) string { return cfg.approveAt(e, p) }}
			step, err := plans.Decide(plans.RunCall{Args: argKeys(call.Arguments), RequirePlan: policy.RequirePlan, Confirm: policy.Confirm,
				CanAsk: call.Elicit != nil || (call.Stateless != nil && call.Stateless.CanElicit), Answer: call.Stateless != nil && call.Stateless.RequestState != ""})
			if err != nil {
				return nil, err
			}
			if step != plans.StepRun {
				return runStep(ctx, rc, step, planID, in)
			}
		}
		return ops.RunTasks(ctx, e, in, allowed, onEvent)
	}
	return spec, true
}

// progress reports each finished task of a run as a progress
// notification, and passes every event on to onEvent.
func progress(call *mcpserver.Call, onEvent func(wire.Event)) func(wire.Event) {
	done, total := 0, 0
	return func(ev wire.Event) {
		if onEvent != nil {
			onEvent(ev)
		}
		switch ev.Type {
		case wire.EventRunStarted:
			total = ev.Tasks
		case wire.EventTaskFinished:
			done++
			call.Progress(float64(done), float64(total), fmt.Sprintf("%s %s (%s)", ev.TaskID, ev.Status, ev.Cache))
		}
	}
}

// argKeys are the argument names a call gave.
func argKeys(args json.RawMessage) map[string]bool {
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(args, &obj)
	keys := make(map[string]bool, len(obj))
	for k := range obj {
		keys[k] = true
	}
	return keys
}
