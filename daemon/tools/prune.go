package tools

import (
	"context"
	"fmt"
	"reflect"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/mcpserver"
)

// pruneArgs is pruneCache's input where vxd keeps plans: the bounds, or a
// dry run's plan to apply.
type pruneArgs struct {
	ops.PruneInput
	PlanID string `json:"planId,omitempty" jsonschema:"a plan from pruneCache with dryRun true, given alone: exactly its entries are evicted, or nothing when any moved"`
}

// pruneCacheSpec makes pruneCache plan and apply like runTasks: a dry
// run is kept as a plan, {planId} evicts exactly its entries.
// mcp.requirePlan and mcp.confirm make deleting take a plan, and under
// mcp.confirm a person approves the plan first (vx approve, the status
// page).
func pruneCacheSpec(e *ops.Env, cfg Config) mcpserver.OperationOptions {
	if cfg.Plans == nil {
		return mcpserver.OperationOptions{}
	}
	return mcpserver.OperationOptions{
		MoreDescription: " A dry run is kept as a plan (planId, expiresAt); pruneCache {planId} alone evicts exactly its entries, or refuses naming each entry that is gone or changed.",
		Input:           reflect.TypeFor[pruneArgs](),
		Run: func(ctx context.Context, call *mcpserver.Call, v any) (any, error) {
			a := v.(*pruneArgs)
			given := argKeys(call.Arguments)
			requirePlan, confirm, unknown := pruneGates(e)
			if given["planId"] {
				for _, name := range []string{"olderThan", "maxSize", "dryRun"} {
					if given[name] {
						return nil, fmt.Errorf("argument %q: pruneCache {planId} evicts exactly the plan's entries; give planId alone", name)
					}
				}
				if confirm {
					where := func(p *plans.Plan) string { return cfg.approveAt(e, p) }
					if err := awaitApproval(ctx, call, cfg.Plans, a.PlanID, where); err != nil {
						return nil, err
					}
				}
				return cfg.Plans.ApplyPrune(ctx, e, a.PlanID, confirm)
			}
			if a.DryRun != nil && !*a.DryRun && (requirePlan || confirm) {
				return nil, fmt.Errorf("this workspace deletes cache entries only as planned "+
					"(mcp.requirePlan or mcp.confirm in vx.workspace.json%s): call pruneCache with dryRun true, read the plan, "+
					"then pruneCache with {\"planId\": …} alone; nothing was deleted", unknown)
			}
			if a.DryRun != nil && !*a.DryRun {
				return ops.PruneCache(ctx, e, a.PruneInput)
			}
			out, err := cfg.Plans.PlanPrune(ctx, e, a.PruneInput, "pruneCache")
			if err != nil {
				return nil, err
			}
			if confirm {
				if out.ApproveWith, err = cfg.approveWith(e, out.PlanID); err != nil {
					return nil, err
				}
			}
			return out, nil
		}}
}

// pruneGates reads mcp.requirePlan and mcp.confirm. While the
// configuration has never loaded, neither is known, so both count as on
// (deleting takes a plan a person approved); unknown then says why.
func pruneGates(e *ops.Env) (requirePlan, confirm bool, unknown string) {
	m, err := e.CurrentModel()
	if err != nil {
		return true, true, "; the configuration did not load, so both count as on"
	}
	return m.Config.MCP.RequirePlan, m.Config.MCP.Confirm.On, ""
}
