package wire

import "time"

// Approving a plan under mcp.confirm is a person's act, outside MCP: `vx
// approve` sends the daemon's approval key (layout.ApproveKey) in
// ApproveKeyHeader, the status page a login made with that key. The
// bearer token opens none of these routes.
const (
	// ApproveKeyHeader carries the approval key.
	ApproveKeyHeader = "X-Vx-Approve-Key"
	// ApprovePath lists the plans awaiting approval (GET) and, followed
	// by a plan id, approves one (POST).
	ApprovePath = "/approve"
	// ApproveLoginParam is the status page's query parameter that turns
	// the approval key into a page login allowed to approve.
	ApproveLoginParam = "approver"
)

// PlanBrief is a plan as a person approving it sees it.
type PlanBrief struct {
	PlanID string `json:"planId"`
	// Kind is the tool that applies it: runTasks or pruneCache.
	Kind string `json:"kind"`
	// Does says what applying it does, in a few lines (masked).
	Does      string    `json:"does"`
	MadeAt    time.Time `json:"madeAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	// ApprovedBy is "" while it waits, else who approved it: "vx approve",
	// "status page" or "elicitation".
	ApprovedBy string `json:"approvedBy,omitempty"`
}

// Approvals is what the approval routes answer: the plan just approved,
// or those waiting.
type Approvals struct {
	Approved *PlanBrief  `json:"approved,omitempty"`
	Pending  []PlanBrief `json:"pending"`
}
