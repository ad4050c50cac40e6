package plans

import (
	"context"
	"fmt"
	"strings"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/layout"
)

// PrunePlan is a pruneCache plan: its dry run, whose entries (key, size,
// creation time) are the prerequisites and exactly what applying it
// evicts.
type PrunePlan struct {
	Input  ops.PruneInput
	Result *cache.PruneResult
}

// PlanPrune makes the dry run of in and keeps it as a plan for
// mcp.planTtl.
func (s *Store) PlanPrune(ctx context.Context, e *ops.Env, in ops.PruneInput, origin string) (*ops.PruneOutput, error) {
	dry := true
	in.DryRun = &dry
	res, err := ops.Prune(ctx, e, in)
	if err != nil {
		return nil, err
	}
	ttl := workspace.DefaultPlanTTL
	if m, err := e.CurrentModel(); err == nil {
		ttl = m.Config.MCP.PlanTTLDuration()
	}
	p := s.Issue(&Plan{Kind: kindPrune, Prune: &PrunePlan{Input: in, Result: res}, Origin: origin, Does: pruneDoes(res)}, ttl)
	exp := p.Expires.UTC()
	return &ops.PruneOutput{PruneResult: *res, PlanID: p.ID, ExpiresAt: &exp}, nil
}

// ApplyPrune evicts exactly the entries of the pruneCache plan id, or
// refuses, naming each planned entry that is gone or changed, and
// evicts nothing.
func (s *Store) ApplyPrune(ctx context.Context, e *ops.Env, id string, needApproval bool) (*ops.PruneOutput, error) {
	p, err := s.claim(id, kindPrune, needApproval)
	if err != nil {
		return nil, err
	}
	c, err := cache.Open(layout.Cache(e.Root), nil)
	if err != nil {
		s.Release(p)
		return nil, err
	}
	res, moved, err := c.Evict(ctx, p.Prune.Result.Evicted)
	if len(moved) > 0 {
		s.Release(p)
		if len(moved) > maxMoved {
			moved = append(moved[:maxMoved], fmt.Sprintf("and %d more", len(moved)-maxMoved))
		}
		return nil, fmt.Errorf("plan %s no longer matches the cache, nothing was evicted: %s; call pruneCache with dryRun true again and apply its planId", id, strings.Join(moved, "; "))
	}
	s.Applied(p, "evicted")
	if err != nil {
		return nil, err
	}
	return &ops.PruneOutput{PruneResult: res, PlanID: id}, nil
}

// pruneDoes says what a prune plan evicts, for the person approving it.
func pruneDoes(r *cache.PruneResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Evict %d cache entr(ies), %d bytes.", len(r.Evicted), r.BytesFreed)
	for i, ev := range r.Evicted {
		if i == 20 {
			fmt.Fprintf(&b, "\n… and %d more", len(r.Evicted)-i)
			break
		}
		fmt.Fprintf(&b, "\n- %s (%s, %d bytes, %s)", ev.TaskID, ev.Key, ev.Bytes, ev.Reason)
	}
	return b.String()
}
