package plans

import (
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// TestDecide: the plan policy of a runTasks call under each workspace
// setting: what runs, what waits for a person, and what is refused.
func TestDecide(t *testing.T) {
	on := workspace.MCPConfirm{On: true}
	outside := workspace.MCPConfirm{On: true, Outside: true}
	sel := map[string]bool{"tasks": true}
	plan := map[string]bool{"planId": true}
	for _, tc := range []struct {
		name string
		call RunCall
		want Step
		err  string
	}{
		{"a selection runs", RunCall{Args: sel}, StepRun, ""},
		{"a plan is applied", RunCall{Args: plan}, StepApply, ""},
		{"a plan with a selection beside it", RunCall{Args: map[string]bool{"planId": true, "force": true}}, 0, `argument "force"`},
		{"requirePlan refuses a selection", RunCall{Args: sel, RequirePlan: true}, 0, "runs only planned tasks"},
		{"requirePlan applies a plan", RunCall{Args: plan, RequirePlan: true}, StepApply, ""},
		{"confirm asks a client that can", RunCall{Args: sel, Confirm: on, CanAsk: true}, stepAsk, ""},
		{"confirm asks about a plan", RunCall{Args: plan, Confirm: on, CanAsk: true}, stepAsk, ""},
		{"confirm refuses a selection it cannot ask about", RunCall{Args: sel, Confirm: on}, 0, "cannot ask"},
		{"confirm waits for a plan it cannot ask about", RunCall{Args: plan, Confirm: on}, StepAwait, ""},
		{"confirm takes a retry's answer", RunCall{Args: sel, Confirm: on, CanAsk: true, Answer: true}, StepAnswer, ""},
		{"outside never asks", RunCall{Args: sel, Confirm: outside, CanAsk: true}, 0, "only outside MCP"},
		{"outside ignores a retry's answer", RunCall{Args: plan, Confirm: outside, CanAsk: true, Answer: true}, StepAwait, ""},
		{"outside waits for a plan", RunCall{Args: plan, Confirm: outside, CanAsk: true}, StepAwait, ""},
		{"requirePlan before confirm", RunCall{Args: sel, RequirePlan: true, Confirm: on, CanAsk: true}, 0, "runs only planned tasks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decide(tc.call)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Decide: %v, %v; want a refusal with %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Decide: %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
