package plans

import (
	"context"
	"fmt"
	"strings"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// Plan plans in (vx run --dry=json, nothing executes), reads the
// prerequisites and keeps the plan for mcp.planTtl: the answer carries
// its planId, expiresAt and prerequisites. origin names the call that
// asked (a confirmation's retry must come from the same call).
func (s *Store) Plan(ctx context.Context, e *ops.Env, in ops.RunTasksInput, origin string) (*ops.PlanTasksOutput, error) {
	out, err := ops.PlanTasks(ctx, e, in)
	if err != nil {
		return nil, err
	}
	pr, err := prerequisites(ctx, e.Root, out.Plan)
	if err != nil {
		return nil, err
	}
	ttl := workspace.DefaultPlanTTL
	if m, err := e.CurrentModel(); err == nil {
		ttl = m.Config.MCP.PlanTTLDuration()
	}
	p := s.Issue(&Plan{Input: in, Plan: out.Plan, Prereq: pr, Origin: origin, Does: e.Masker.String(runDoes(out.Plan, in.Force))}, ttl)
	out.PlanID, out.Prerequisites = p.ID, pr
	exp := p.Expires.UTC()
	out.ExpiresAt = &exp
	return out, nil
}

// Runner is how an applied plan runs.
type Runner struct {
	Env *ops.Env
	// Allowed is the workspace's mcp.run allow-list (nil: any task).
	Allowed func(string) bool
	// OnEvent hears the run's events.
	OnEvent func(wire.Event)
	// NeedApproval refuses a plan no person approved (mcp.confirm).
	NeedApproval bool
}

// Apply claims the plan id, plans its selection again and compares every
// prerequisite; when anything moved it refuses, naming each difference,
// and nothing runs. Otherwise it runs the plan's selection (with the
// workspace's mcp.run allow-list) and marks the plan applied.
func (s *Store) Apply(ctx context.Context, r Runner, id string) (*ops.RunTasksOutput, error) {
	e := r.Env
	p, err := s.claim(id, kindRun, r.NeedApproval)
	if err != nil {
		return nil, err
	}
	ran := false
	defer func() {
		if !ran {
			s.Release(p)
		}
	}()
	cur, err := ops.PlanTasks(ctx, e, p.Input)
	if err != nil {
		return nil, fmt.Errorf("plan %s cannot be checked, nothing ran: planning its tasks again failed: %w", id, err)
	}
	pr, err := prerequisites(ctx, e.Root, cur.Plan)
	if err != nil {
		return nil, fmt.Errorf("plan %s cannot be checked, nothing ran: %w", id, err)
	}
	if moved := moved(p.Prereq, pr); len(moved) > 0 {
		return nil, fmt.Errorf("plan %s no longer matches the workspace, nothing ran: %s; call planTasks again and runTasks with its planId", id, strings.Join(moved, "; "))
	}
	ran = true
	out, err := ops.RunTasks(ctx, e, p.Input, r.Allowed, r.OnEvent)
	runID := ""
	if out != nil && out.Summary != nil {
		runID = out.Summary.RunID
	}
	if err != nil && out == nil {
		// vx run refused before anything ran: the plan may be applied again.
		ran = false
		return nil, err
	}
	s.Applied(p, runID)
	out.PlanID = id
	return out, nil
}

// claim is Claim for applying a plan of kind, refusing one of another
// kind and, with needApproval, one no person approved.
func (s *Store) claim(id, kind string, needApproval bool) (*Plan, error) {
	p, err := s.Claim(id)
	if err != nil {
		return nil, err
	}
	var refusal error
	switch {
	case p.kind() != kind:
		refusal = fmt.Errorf("plan %s is a %s plan: apply it with %s {planId}", id, p.kind(), p.kind())
	case needApproval && s.Approved(p) == "":
		refusal = fmt.Errorf("plan %s awaits a person's approval (mcp.confirm): nothing ran", id)
	}
	if refusal != nil {
		s.Release(p)
		return nil, refusal
	}
	return p, nil
}

// runDoes says what applying a run plan does, for the person approving
// it: each task with its predicted cache outcome and command.
func runDoes(plan *wire.Plan, force bool) string {
	var b strings.Builder
	hits := 0
	for _, t := range plan.Tasks {
		if t.Cache == "hit" && !force {
			hits++
		}
	}
	fmt.Fprintf(&b, "Run %d task(s): %d cache hit(s), %d to execute.", len(plan.Tasks), hits, len(plan.Tasks)-hits)
	for i, t := range plan.Tasks {
		if i == maxMoved {
			fmt.Fprintf(&b, "\n… and %d more", len(plan.Tasks)-i)
			break
		}
		fmt.Fprintf(&b, "\n- %s (%s): %s", t.TaskID, t.Cache, t.Command)
	}
	return b.String()
}
