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
	pr, err := Prerequisites(ctx, e.Root, out.Plan)
	if err != nil {
		return nil, err
	}
	ttl := workspace.DefaultPlanTTL
	if m, err := e.CurrentModel(); err == nil {
		ttl = m.Config.MCP.PlanTTLDuration()
	}
	p := s.Issue(&Plan{Input: in, Plan: out.Plan, Prereq: pr, Origin: origin}, ttl)
	out.PlanID, out.Prerequisites = p.ID, pr
	exp := p.Expires.UTC()
	out.ExpiresAt = &exp
	return out, nil
}

// Apply claims the plan id, plans its selection again and compares every
// prerequisite; when anything moved it refuses, naming each difference,
// and nothing runs. Otherwise it runs the plan's selection (with the
// workspace's mcp.run allow-list) and marks the plan applied.
func (s *Store) Apply(ctx context.Context, e *ops.Env, id string, allowed func(string) bool, onEvent func(wire.Event)) (*ops.RunTasksOutput, error) {
	p, err := s.Claim(id)
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
	pr, err := Prerequisites(ctx, e.Root, cur.Plan)
	if err != nil {
		return nil, fmt.Errorf("plan %s cannot be checked, nothing ran: %w", id, err)
	}
	if moved := Moved(p.Prereq, pr); len(moved) > 0 {
		return nil, fmt.Errorf("plan %s no longer matches the workspace, nothing ran: %s; call planTasks again and runTasks with its planId", id, strings.Join(moved, "; "))
	}
	ran = true
	out, err := ops.RunTasks(ctx, e, p.Input, allowed, onEvent)
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
