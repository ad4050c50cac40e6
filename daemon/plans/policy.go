package plans

import (
	"fmt"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
)

// selectionArgs are runTasks' arguments that choose what runs; a planId
// replaces them all.
var selectionArgs = []string{"tasks", "all", "filter", "affected", "force"}

// RunCall is a runTasks call where vxd keeps plans, as the workspace's
// plan policy (mcp.requirePlan, mcp.confirm) sees it.
type RunCall struct {
	// Args are the names of the arguments the call gave (planId among
	// them when it names a plan).
	Args        map[string]bool
	RequirePlan bool                 // mcp.requirePlan
	Confirm     workspace.MCPConfirm // mcp.confirm
	// CanAsk says the client can ask a person (it declared elicitation).
	CanAsk bool
	// Answer says the call retries with a person's answer (a 2026-07-28
	// requestState).
	Answer bool
}

// Step is how a runTasks call proceeds.
type Step int

const (
	StepRun    Step = iota // run the selection as given
	StepApply              // apply the plan planId names
	StepAwait              // wait until a person approves planId outside MCP, then apply it
	stepAsk                // ask the client's person to confirm the plan (planId's, or one made now for the selection)
	StepAnswer             // take the person's answer the retry carries
)

// Decide is the plan policy of a runTasks call: whether it runs its
// selection, applies a plan, waits for a person's approval or asks for
// it. A call the policy refuses is an error saying why and what to do;
// nothing runs then.
func Decide(c RunCall) (Step, error) {
	planned := c.Args["planId"]
	if !planned && c.RequirePlan {
		return 0, fmt.Errorf("this workspace runs only planned tasks (mcp.requirePlan in vx.workspace.json): " +
			"call planTasks with the tasks, read the plan, then call runTasks with {\"planId\": …} alone; nothing ran")
	}
	if planned {
		for _, name := range selectionArgs {
			if c.Args[name] {
				return 0, opkit.Refuse(name, "runTasks {planId} runs exactly the plan's selection; give planId alone (plan other tasks with planTasks)")
			}
		}
	}
	switch {
	case !c.Confirm.On && planned:
		return StepApply, nil
	case !c.Confirm.On:
		return StepRun, nil
	case c.Answer && !c.Confirm.Outside:
		return StepAnswer, nil
	case (!c.CanAsk || c.Confirm.Outside) && !planned:
		return 0, noAsking(c.Confirm.Outside)
	case !c.CanAsk || c.Confirm.Outside:
		return StepAwait, nil
	}
	return stepAsk, nil
}

// noAsking refuses runTasks with a selection when the client is not
// asked (it cannot ask, or outside: mcp.confirm "outside"): a person
// approves a plan outside MCP.
func noAsking(outside bool) error {
	why := "this client cannot ask (it declared no elicitation)"
	if outside {
		why = "this workspace takes approvals only outside MCP (mcp.confirm \"outside\")"
	}
	return fmt.Errorf("this workspace runs tasks only once a person approves them (mcp.confirm in vx.workspace.json), and %s: "+
		"call planTasks, whose answer says where a person approves the plan (`vx approve PLAN` in a terminal, or the status page), "+
		"then call runTasks with {\"planId\": …}, which waits for that approval. Nothing ran", why)
}
