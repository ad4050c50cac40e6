package tools

import (
	"github.com/vzn/vx/daemon/ops"
)

// runTasksArgs is runTasks' input where vxd keeps plans: the selection,
// or a plan to run.
type runTasksArgs struct {
	ops.RunTasksInput
	PlanID string `json:"planId,omitempty" jsonschema:"a plan from planTasks, given alone: its prerequisites are re-checked, then exactly it runs"`
}

// planDescription is what runTasks' description adds about plans.
func planDescription(requirePlan bool) string {
	s := " With planId (from planTasks, alone) it re-checks the plan's prerequisites (config files, " +
		"vx.lock, git HEAD and uncommitted state, each task's key) and runs exactly that plan, or refuses naming what " +
		"moved."
	if requirePlan {
		s += " This workspace requires a plan (mcp.requirePlan): planTasks first, then runTasks {planId}."
	}
	return s
}
