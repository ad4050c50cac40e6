package ops

import (
	"context"

	"github.com/vzn/vx/client"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

// ApproveInput is vx approve's: the plan a person approves, or nothing
// (list the plans waiting), or page (the address that logs a browser in
// to approve on the status page).
type ApproveInput struct {
	PlanID string `json:"planId,omitempty" jsonschema:"the plan to approve (planTasks answers its planId)" pos:"plan"`
	Page   bool   `json:"page,omitempty" jsonschema:"print the status page address that logs a browser in to approve" flag:"page" help:"print the status page login address (it holds the approval key)"`
}

// Validate refuses a plan and --page together.
func (in ApproveInput) Validate() error {
	if in.PlanID != "" && in.Page {
		return opkit.Refuse("page", "approves nothing: give a plan or --page, not both")
	}
	return nil
}

// ApproveOutput is vx approve's answer.
type ApproveOutput struct {
	Approved  *wire.PlanBrief  `json:"approved,omitempty"`
	Pending   []wire.PlanBrief `json:"pending"`
	PageLogin string           `json:"pageLogin,omitempty"`
}

// ApprovePlan is a person approving a plan under mcp.confirm, from a
// terminal: it sends the running vxd's approval key, which only the
// workspace's files hold (never an MCP client), so it is a verb and never
// a tool.
func ApprovePlan(ctx context.Context, e *Env, in ApproveInput) (*ApproveOutput, error) {
	c := &client.Client{Root: e.Root}
	if in.Page {
		u, err := c.ApproverPage(ctx)
		if err != nil {
			return nil, err
		}
		return &ApproveOutput{Pending: []wire.PlanBrief{}, PageLogin: u}, nil
	}
	var a *wire.Approvals
	var err error
	if in.PlanID == "" {
		a, err = c.Pending(ctx)
	} else {
		a, err = c.Approve(ctx, in.PlanID)
	}
	if err != nil {
		return nil, err
	}
	out := &ApproveOutput{Approved: a.Approved, Pending: a.Pending}
	if out.Pending == nil {
		out.Pending = []wire.PlanBrief{}
	}
	for _, p := range []*wire.PlanBrief{out.Approved} {
		if p != nil {
			p.Does = e.Masker.String(p.Does)
		}
	}
	return out, nil
}
