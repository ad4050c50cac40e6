//go:build !windows

package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// The official SDK left to its defaults speaks 2026-07-28 to vxd: it
// probes with server/discover and, answered, never initializes. These
// transports leave it so, straight over HTTP and through `vx mcp`.

func connectStateless(t *testing.T, tr mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "vx-mcp-stateless", Version: "1"}, opts).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the SDK speaks %s to vxd, want 2026-07-28", v)
	}
	return cs
}

var statelessTransports = []transport{
	{"http", func(t *testing.T, root string, opts *mcp.ClientOptions, env ...string) *mcp.ClientSession {
		endpoint, token, _ := startDaemon(t, root, env...)
		tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: harness.BearerClient(token), MaxRetries: -1}
		return connectStateless(t, tr, opts)
	}},
	{"shim", func(t *testing.T, root string, opts *mcp.ClientOptions, env ...string) *mcp.ClientSession {
		cs := connectStateless(t, &mcp.CommandTransport{Command: shimCmd(root, env...), TerminateDuration: 5 * time.Second}, opts)
		if d, err := readDiscovery(root); err == nil {
			daemonPIDs.Store(d.PID, root)
		}
		return cs
	}},
}

// TestStatelessEra drives the real vxd in the stateless era: no session on
// the daemon, the catalog, runTasks with progress, cancellation of a run
// by closing its stream, and a config edit announced on the listen stream.
func TestStatelessEra(t *testing.T) {
	for _, tr := range statelessTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "policy")
			var progress progressLog
			changed := make(chan struct{}, 16)
			opts := &mcp.ClientOptions{
				ProgressNotificationHandler: progress.handle,
				ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			}
			cs := tr.connect(t, root, opts)
			if st, r := vxdStatus(t, root); st == nil || st.Sessions != 0 {
				t.Errorf("vxd status with a stateless client: want 0 sessions\n%s", r)
			}
			if !hasTask(t, cs, "one#test") {
				t.Fatal("listTasks lacks one#test")
			}

			runTestAndLint(t, cs, "stateless-1")
			progress.wait(t, 6)
			for _, n := range progress.all() {
				if n.ProgressToken != "stateless-1" || n.Total != 6 {
					t.Errorf("progress %+v", n)
				}
			}

			// Cancelling the call closes its stream: the run is interrupted.
			cctx, ccancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"tasks": []string{"one#nap"}}})
				errc <- err
			}()
			harness.WaitFor(t, 20*time.Second, "the nap task to start", func() bool {
				_, err := os.Stat(filepath.Join(root, "one.napping"))
				return err == nil
			})
			ccancel()
			if err := <-errc; err == nil {
				t.Error("the cancelled call answered")
			}
			var last struct {
				Found bool `json:"found"`
				Run   struct {
					Status string `json:"status"`
				} `json:"run"`
			}
			harness.WaitFor(t, 20*time.Second, "the run to be recorded as ended", func() bool {
				r := run(t, root, nil, vxBin, "last", "--format", "json")
				return r.Code == 0 && json.Unmarshal([]byte(r.Stdout), &last) == nil && last.Found && last.Run.Status != "running"
			})
			if last.Run.Status != "interrupted" {
				t.Errorf("the cancelled run is recorded as %q, want interrupted", last.Run.Status)
			}
			assertNoSurvivors(t, root)

			// mcp.run false: runTasks leaves the catalog, announced on the
			// listen stream the SDK opened.
			for len(changed) > 0 {
				<-changed
			}
			setRunPolicy(t, root, `,"mcp":{"run":false}`)
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/tools/list_changed within 10s of setting mcp.run false")
			}
			if _, ok := toolNames(t, cs)["runTasks"]; ok {
				t.Error("runTasks still listed")
			}
			callOK(t, cs, "getWorkspaceInfo", map[string]any{})
		})
	}
}
