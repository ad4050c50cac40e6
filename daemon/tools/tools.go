// Package tools is vxd's MCP catalog: every tool, resource and prompt the
// daemon serves, each a thin adapter that checks its arguments (never
// coercing them) and calls one operation of package ops.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/mcp"
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

// Handler answers one tool call with its decoded input (a pointer to the
// operation's input type, or to the type a Spec replaced it with).
type Handler func(ctx context.Context, call *mcpserver.Call, in any) (any, error)

// Spec adjusts how one operation is served: a description added to the
// declared one, an input type that extends the operation's (runTasks'
// planId), a handler in place of the operation's function.
type Spec struct {
	MoreDescription string
	Input           reflect.Type // with Run: its handler gets a pointer to this type
	Run             Handler
}

// Tool turns one operation into an MCP tool: inputSchema and outputSchema
// from its types, its annotations, and a handler that decodes the
// arguments into the typed input (refusing, never coercing), checks them
// against the schema, and answers. e may be nil for an operation served
// with its own Run (the team platform's); with e, answers that depend
// only on the model are kept until a reload.
func Tool(op *ops.Operation, e *ops.Env, spec Spec) mcpserver.Tool {
	in := op.Input
	if spec.Input != nil {
		if spec.Run == nil {
			panic(fmt.Sprintf("tools: %s: a replaced input needs its own Run", op.Name))
		}
		in = spec.Input
	}
	inSchema, resolved, err := inputSchema(in)
	if err != nil {
		panic(fmt.Sprintf("tools: %s: %v", op.Name, err)) // a declaration bug; TestCatalogIsTheOperations builds every one
	}
	ann := &mcp.ToolAnnotations{Title: op.Title, ReadOnlyHint: mcp.Bool(op.ReadOnly), OpenWorldHint: mcp.Bool(false)}
	if !op.ReadOnly {
		ann.DestructiveHint = mcp.Bool(op.Destructive)
		ann.IdempotentHint = mcp.Bool(op.Idempotent)
	}
	def := mcp.Tool{Name: op.Name, Title: op.Title, Description: op.Description + spec.MoreDescription,
		InputSchema: inSchema, OutputSchema: outputSchema(reflect.New(op.Output).Interface()), Annotations: ann}
	run := spec.Run
	if run == nil {
		run = func(ctx context.Context, _ *mcpserver.Call, in any) (any, error) { return op.Call(ctx, e, in) }
	}
	var memo *answerMemo
	if e != nil && spec.Input == nil {
		memo = &answerMemo{env: e}
	}
	return mcpserver.Tool{Def: def, Handler: func(ctx context.Context, call *mcpserver.Call) (any, error) {
		if memo != nil {
			// Kept answers were computed from these very arguments after
			// they decoded and passed the schema (with this catalog, on
			// this model).
			if enc, ok := memo.get(call.Arguments); ok {
				return enc, nil
			}
		}
		v := reflect.New(in).Interface()
		if err := decode(call.Arguments, v, resolved); err != nil {
			return nil, refusal(err)
		}
		keep := memo != nil && op.ModelOnly(v)
		out, err := run(ctx, call, v)
		if err != nil {
			return nil, refusal(err)
		}
		if keep {
			return memo.put(call.Arguments, out)
		}
		return out, nil
	}}
}

// decode fills in from the arguments, then checks them against the
// advertised schema: the decoder says what is wrong in vx's words, and
// the schema check keeps the two from ever disagreeing.
func decode(args json.RawMessage, in any, schema *jsonschema.Resolved) error {
	if err := ops.DecodeInput(args, in); err != nil {
		return err
	}
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return err
	}
	if err := schema.Validate(inst); err != nil {
		return fmt.Errorf("arguments do not match the tool's inputSchema: %v", err)
	}
	return nil
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

// refusal renders an operation's error as the one line an agent reads.
func refusal(err error) error {
	var ae *ops.ArgError
	if errors.As(err, &ae) {
		return fmt.Errorf("argument %q: %s", ae.Arg, ae.Msg)
	}
	return err
}

// Catalog lists every operation as a tool for the env's current
// configuration: runTasks is absent when mcp.run is false.
func Catalog(e *ops.Env, cfg Config) []mcpserver.Tool {
	var out []mcpserver.Tool
	for _, op := range ops.Operations() {
		switch op.Name {
		case ops.OpPlanTasks:
			out = append(out, Tool(op, e, planTasksSpec(e, cfg)))
		case ops.OpRunTasks:
			if spec, ok := runTasksSpec(e, cfg); ok {
				out = append(out, Tool(op, e, spec))
			}
		case ops.OpPruneCache:
			out = append(out, Tool(op, e, pruneCacheSpec(e, cfg)))
		default:
			if op.CLIOnly {
				continue // a person's act (vx approve): never a tool
			}
			out = append(out, Tool(op, e, Spec{}))
		}
	}
	return out
}

// planTasksSpec keeps the plan when vxd has a plan store.
func planTasksSpec(e *ops.Env, cfg Config) Spec {
	if cfg.Plans == nil {
		return Spec{}
	}
	return Spec{MoreDescription: " vxd keeps the plan: planId, expiresAt and prerequisites (config file hashes, vx.lock, git HEAD and uncommitted state, each task's key) let runTasks {planId} run exactly it.",
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
func runTasksSpec(e *ops.Env, cfg Config) (Spec, bool) {
	m, err := e.CurrentModel()
	if err != nil || !m.Config.MCP.Run.Enabled() {
		return Spec{}, false
	}
	allow := m.Config.MCP.Run
	var allowed func(string) bool
	var desc string
	if !allow.All && allow.Set {
		allowed = allow.Allows
		desc += fmt.Sprintf(" This workspace lets agents run only: %v (their dependsOn still run).", allow.Tasks)
	}
	spec := Spec{}
	if cfg.Plans != nil {
		desc += planDescription(m.Config.MCP.RequirePlan)
		switch {
		case m.Config.MCP.Confirm.Outside:
			desc += " This workspace runs a plan only once a person approved it outside MCP (mcp.confirm \"outside\": vx approve or the status page): planTasks, then runTasks {planId}, which waits for the approval."
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
				CanAsk: call.Elicit != nil || (call.Modern != nil && call.Modern.CanElicit), Answer: call.Modern != nil && call.Modern.RequestState != ""})
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
