//go:build !windows

package platform_test

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// The official Go SDK, as an independent client, talks to POST /mcp:
// initialize, tools/list with schemas, and a tool call whose structured
// content matches its schema (the SDK checks it).
func TestSDKClient(t *testing.T) {
	ts := seed(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.p.srv.URL + "/mcp", HTTPClient: harness.BearerClient(ts.acme), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 7 {
		t.Fatalf("ListTools: %v %v", tools, err)
	}
	for _, tl := range tools.Tools {
		if tl.InputSchema == nil || tl.OutputSchema == nil || tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("%s: schemas or read-only annotation missing", tl.Name)
		}
	}
	compareAndBadLimit(ctx, t, cs)
}

// compareAndBadLimit is what both eras' SDK tests ask of acme's seeded
// runs: compare_runs finds the run before a2a2…, and a limit given as a
// string is a tool error.
func compareAndBadLimit(ctx context.Context, t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "compare_runs", Arguments: map[string]any{"runId": "a2a2a2a2a2a2"}})
	if err != nil || res.IsError {
		t.Fatalf("compare_runs: %v %v", res, err)
	}
	if m, ok := res.StructuredContent.(map[string]any); !ok || m["previousRunId"] != "a1a1a1a1a1a1" {
		t.Fatalf("compare_runs structured content: %#v", res.StructuredContent)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_runs", Arguments: map[string]any{"limit": "10"}})
	if err != nil || !res.IsError {
		t.Fatalf("list_runs limit \"10\": want isError, got %v %v", res, err)
	}
}
