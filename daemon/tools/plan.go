package tools

import (
	"context"
	"fmt"

	"github.com/vzn/vx/daemon/ops"
)

// selectionArgs are runTasks' arguments that choose what runs; a planId
// replaces them all.
var selectionArgs = []string{"tasks", "all", "filter", "affected", "force"}

// runTasksArgs is runTasks' input where vxd keeps plans: the selection,
// or a plan to run.
type runTasksArgs struct {
	ops.RunTasksInput
	PlanID string `json:"planId,omitempty" jsonschema:"a plan from planTasks, given alone: its prerequisites are re-checked, then exactly it runs"`
}

// planDescription is what runTasks' description adds about plans.
func planDescription(requirePlan bool) string {
	s := " With planId (from planTasks, alone) it re-checks the plan's prerequisites (config files, vx.lock, git HEAD and uncommitted state, each task's key) and runs exactly that plan, or refuses naming what moved."
	if requirePlan {
		s += " This workspace requires a plan (mcp.requirePlan): planTasks first, then runTasks {planId}."
	}
	return s
}

// applyPlan serves runTasks when a plan decides it: a planId is applied
// through the store, and under mcp.requirePlan a call without one is
// refused. handled is false when the call is an ordinary selection.
func applyPlan(ctx context.Context, rc *runCall, given map[string]bool, planID string) (handled bool, out any, err error) {
	if err := checkPlanArgs(rc.runner.Env, given); err != nil {
		return true, nil, err
	}
	if !given["planId"] {
		return false, nil, nil
	}
	res, err := rc.store.Apply(ctx, rc.runner, planID)
	if err != nil {
		return true, nil, err
	}
	return true, res, nil
}

// checkPlanArgs refuses a call without planId under mcp.requirePlan, and
// a planId with selection arguments beside it.
func checkPlanArgs(e *ops.Env, given map[string]bool) error {
	if !given["planId"] {
		if m, merr := e.CurrentModel(); merr == nil && m.Config.MCP.RequirePlan {
			return fmt.Errorf("this workspace runs only planned tasks (mcp.requirePlan in vx.workspace.json): call planTasks with the tasks, read the plan, then call runTasks with {\"planId\": …} alone; nothing ran")
		}
		return nil
	}
	for _, name := range selectionArgs {
		if given[name] {
			return fmt.Errorf("argument %q: runTasks {planId} runs exactly the plan's selection; give planId alone (plan other tasks with planTasks)", name)
		}
	}
	return nil
}
