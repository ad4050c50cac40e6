//go:build !windows

package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCompletionAndUpdates, in both eras over HTTP and through vx mcp:
// completion/complete proposes project names, task ids and run ids, refuses
// an unknown prompt or template with -32602; a client following
// vx://runs/latest and a task's log hears when a run in a shell finishes.
func TestCompletionAndUpdates(t *testing.T) {
	for _, tr := range eraTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "policy")
			updated := make(chan string, 64)
			cs := tr.connect(t, root, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
				updated <- r.Params.URI
			}})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if caps := cs.InitializeResult().Capabilities; caps.Completions == nil || caps.Resources == nil || !caps.Resources.Subscribe {
				t.Errorf("capabilities do not declare completions and resource subscriptions: %+v", caps)
			}
			complete := func(ref *mcp.CompleteReference, arg, value string) []string {
				t.Helper()
				res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
				if err != nil {
					t.Fatalf("complete %s %q: %v", arg, value, err)
				}
				return res.Completion.Values
			}
			prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: "explain-rerun"}
			if got := strings.Join(complete(prompt, "taskId", "one#"), " "); got != "one#lint one#nap one#prep one#test" {
				t.Errorf("one# completes to %q", got)
			}
			if got := strings.Join(complete(prompt, "taskId", "t"), " "); got != "two#" {
				t.Errorf("t completes to %q", got)
			}
			tmpl := &mcp.CompleteReference{Type: "ref/resource", URI: "vx://tasks/{taskId}/log"}
			if got := strings.Join(complete(tmpl, "taskId", "two%23l"), " "); got != "two%23lint" {
				t.Errorf("the template's two%%23l completes to %q", got)
			}
			for _, ref := range []*mcp.CompleteReference{{Type: "ref/prompt", Name: "nope"}, {Type: "ref/resource", URI: "vx://nope/{x}"}} {
				_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "x", Value: ""}})
				if err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "unknown") {
					t.Errorf("completing for %+v: %v, want -32602", ref, err)
				}
			}

			for _, uri := range []string{"vx://runs/latest", "vx://tasks/one%23lint/log"} {
				if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
					t.Fatalf("subscribe %s: %v", uri, err)
				}
			}
			// A run in a shell, not through MCP: vxd hears it from the events
			// it tails. A 2026 client opens its listen stream in the
			// background, so a run may end before it listens: run again then.
			seen := map[string]bool{}
			for attempt := 0; attempt < 5 && !(seen["vx://runs/latest"] && seen["vx://tasks/one%23lint/log"]); attempt++ {
				if r := run(t, root, nil, vxBin, "run", "lint", "--force"); r.Code != 0 {
					t.Fatalf("vx run lint\n%s", r)
				}
				wait := time.After(5 * time.Second)
			collect:
				for !seen["vx://runs/latest"] || !seen["vx://tasks/one%23lint/log"] {
					select {
					case u := <-updated:
						seen[u] = true
					case <-wait:
						break collect
					}
				}
			}
			if !seen["vx://runs/latest"] || !seen["vx://tasks/one%23lint/log"] {
				t.Fatalf("updates heard after five shell runs: %v; want vx://runs/latest and vx://tasks/one%%23lint/log", seen)
			}
			if seen["vx://tasks/two%23lint/log"] {
				t.Error("an update for a resource nobody subscribed to")
			}
			runs := runsRecorded(t, root)
			if got := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "diagnose-failure"}, "runId", runs[0][:3]); len(got) == 0 || got[0] != runs[0] {
				t.Errorf("run id prefix %s completes to %v, want %s first", runs[0][:3], got, runs[0])
			}
		})
	}
}
