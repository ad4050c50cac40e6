package plans

import (
	"context"
	"fmt"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// Under mcp.confirm a plan runs only once a person approved it. A client
// that can ask (MCP elicitation) approves through its form; otherwise the
// person approves outside MCP, with `vx approve` or on the status page,
// while the agent's call waits (WaitApproved).

// Who approved a plan.
const (
	ByCLI         = "vx approve"
	ByPage        = "status page"
	ByElicitation = "elicitation"
)

// Approve records by's approval of the plan named id, refusing one that
// could not be applied any more (unknown, expired, applied). Approving an
// approved plan again changes nothing.
func (s *Store) Approve(id, by string) (wire.PlanBrief, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.live(id)
	if err != nil {
		return wire.PlanBrief{}, err
	}
	if p.approval == "" {
		p.approval = by
		close(p.approved)
	}
	return p.brief(), nil
}

// Approved reports who approved p ("" when nobody has).
func (s *Store) Approved(p *Plan) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.approval
}

// WaitApproved waits until a person approves p, p expires, or ctx ends.
func (s *Store) WaitApproved(ctx context.Context, p *Plan) error {
	t := time.NewTimer(p.Expires.Sub(s.now()))
	defer t.Stop()
	select {
	case <-p.approved:
		return nil
	case <-t.C:
		return fmt.Errorf("plan %s expired (after %s, mcp.planTtl) before a person approved it: nothing ran; call planTasks again", p.ID, p.TTL)
	case <-ctx.Done():
		return fmt.Errorf("waiting for a person to approve plan %s: %w; nothing ran", p.ID, ctx.Err())
	}
}

// Pending lists the plans that await approval and could still be
// applied, oldest first.
func (s *Store) Pending() []wire.PlanBrief {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	out := []wire.PlanBrief{}
	for _, id := range s.order {
		p := s.plans[id]
		if p != nil && p.approval == "" && !p.applied && now.Before(p.Expires) {
			out = append(out, p.brief())
		}
	}
	return out
}

func (p *Plan) brief() wire.PlanBrief {
	return wire.PlanBrief{PlanID: p.ID, Kind: p.kind(), Does: p.Does, MadeAt: p.Made.UTC(), ExpiresAt: p.Expires.UTC(), ApprovedBy: p.approval}
}
