//go:build !windows

package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// eraTransports are the four ways a client reaches vxd: each era, over
// HTTP and through vx mcp.
var eraTransports = []struct {
	name    string
	connect func(t *testing.T, root string, opts *mcp.ClientOptions) *mcp.ClientSession
}{
	{"2025-11-25/http", func(t *testing.T, root string, opts *mcp.ClientOptions) *mcp.ClientSession {
		endpoint, token, _ := startDaemon(t, root)
		return connectHTTP(t, endpoint, token, opts)
	}},
	{"2025-11-25/shim", func(t *testing.T, root string, opts *mcp.ClientOptions) *mcp.ClientSession {
		return connectShim(t, root, opts)
	}},
	{"2026-07-28/http", func(t *testing.T, root string, opts *mcp.ClientOptions) *mcp.ClientSession {
		endpoint, token, _ := startDaemon(t, root)
		return connectStateless(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: harness.BearerClient(token), MaxRetries: -1}, opts)
	}},
	{"2026-07-28/shim", func(t *testing.T, root string, opts *mcp.ClientOptions) *mcp.ClientSession {
		return connectStateless(t, &mcp.CommandTransport{Command: shimCmd(root), TerminateDuration: 5 * time.Second}, opts)
	}},
}

// asker answers every confirmation with the next of its answers and
// keeps the messages it was shown.
type asker struct {
	mu       sync.Mutex
	answers  []*mcp.ElicitResult
	messages []string
}

func (a *asker) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.messages = append(a.messages, req.Params.Message)
	r := a.answers[0]
	a.answers = a.answers[1:]
	return r, nil
}

// TestConfirm: under mcp.confirm a person sees the plan before anything
// runs — through elicitation/create in the session era and an
// input_required retry in the stateless era; a decline or a dismissal runs
// nothing and says so; a client that cannot ask is told the two-call way.
func TestConfirm(t *testing.T) {
	for _, tr := range eraTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "policy")
			setRunPolicy(t, root, `,"mcp":{"confirm":true}`)
			gitIn(t, root, "commit", "-qam", "confirm")
			a := &asker{answers: []*mcp.ElicitResult{
				{Action: "decline"},
				{Action: "cancel"},
				{Action: "accept", Content: map[string]any{"confirm": false}},
				{Action: "accept", Content: map[string]any{"confirm": true}},
			}}
			cs := tr.connect(t, root, &mcp.ClientOptions{ElicitationHandler: a.handle})
			lint := map[string]any{"tasks": []string{"lint"}}
			callRefused(t, cs, "runTasks", lint, "declined to run plan")
			callRefused(t, cs, "runTasks", lint, "dismissed the confirmation")
			callRefused(t, cs, "runTasks", lint, "answered not to run")
			if n := len(runsRecorded(t, root)); n != 0 {
				t.Fatalf("%d runs after three refusals", n)
			}
			var out runTasksOut
			callOK(t, cs, "runTasks", lint).structured(t, &out)
			if strings.Join(out.ids(), " ") != "one#lint two#lint" {
				t.Errorf("the confirmed run ran %v", out.ids())
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if len(a.messages) != 4 {
				t.Fatalf("the user was asked %d times, want 4", len(a.messages))
			}
			for _, want := range []string{"Run 2 task(s)", "one#lint (miss)", "two#lint", "wall time", "Plan plan-"} {
				if !strings.Contains(a.messages[0], want) {
					t.Errorf("the confirmation lacks %q:\n%s", want, a.messages[0])
				}
			}
		})
	}
}

// TestConfirmWithoutElicitation: a client that declared no elicitation
// is refused a selection and told to plan; the plan runs only once a
// person approved it with vx approve (TestApprovalIsAPersons has the
// waiting call).
func TestConfirmWithoutElicitation(t *testing.T) {
	for _, tr := range []int{0, 2} {
		tr := eraTransports[tr]
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "policy")
			setRunPolicy(t, root, `,"mcp":{"confirm":true}`)
			gitIn(t, root, "commit", "-qam", "confirm")
			cs := tr.connect(t, root, nil)
			callRefused(t, cs, "runTasks", map[string]any{"tasks": []string{"lint"}}, "call planTasks, whose answer says where a person approves the plan")
			p := planTasks(t, cs, "lint")
			if r := run(t, root, nil, vxBin, "approve", p.PlanID); r.Code != 0 {
				t.Fatalf("vx approve\n%s", r)
			}
			var out runTasksOut
			callOK(t, cs, "runTasks", map[string]any{"planId": p.PlanID}).structured(t, &out)
			if strings.Join(out.ids(), " ") != "one#lint two#lint" {
				t.Errorf("ran %v", out.ids())
			}
		})
	}
}
