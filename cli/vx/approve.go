package vx

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
)

var approveBinding = cmdline.Bind(reflect.TypeFor[ops.ApproveInput]())

// approveVerb is a person approving a plan under mcp.confirm: the
// approvePlan operation, which is never an MCP tool.
func approveVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	b := approveBinding
	a, format, e, err := question(s, cmdline.Verb{Name: "approve", Synopsis: "approve [PLAN | --page] [flags]", Answers: true,
		About: "\nApproves a plan an agent made under mcp.confirm, so that its runTasks {planId} (or " +
			"pruneCache {planId}) runs it.\nWithout PLAN it lists the plans waiting; --page prints the status page address " +
			"that logs a browser in to approve.\n",
		Bind: b,
		Check: func(a *cmdline.Args) error {
			if len(a.Pos()) > 1 {
				return cmdline.UsageError("vx approve takes one plan id, e.g. `vx approve plan-…`")
			}
			return nil
		}}, argv, anyEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	var in ops.ApproveInput
	if err := fill(b, a, &in); err != nil {
		return err
	}
	out, err := ops.ApprovePlan(ctx, e, in)
	return answer(s, b, format, out, err, renderApprove)
}

func renderApprove(w io.Writer, o *ops.ApproveOutput) {
	if o.PageLogin != "" {
		fmt.Fprintf(w, "open %s\n(it logs the browser in to approve plans on the status page; it carries the approval key: keep it to yourself)\n", o.PageLogin)
		return
	}
	if o.Approved != nil {
		fmt.Fprintf(w, "approved %s (%s); it runs when the agent applies it, until %s\n%s\n", o.Approved.PlanID, o.Approved.Kind,
			o.Approved.ExpiresAt.Local().Format(time.TimeOnly), indentLines(o.Approved.Does))
		return
	}
	if len(o.Pending) == 0 {
		fmt.Fprintln(w, "no plan awaits approval")
		return
	}
	for _, p := range o.Pending {
		fmt.Fprintf(w, "%s (%s, until %s)\n%s\n", p.PlanID, p.Kind, p.ExpiresAt.Local().Format(time.TimeOnly), indentLines(p.Does))
	}
	fmt.Fprintln(w, "approve one with `vx approve PLAN`")
}

func indentLines(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
