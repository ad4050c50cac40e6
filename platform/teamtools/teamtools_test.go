package teamtools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/mcpserver"
)

// TestCatalogSchemas: the seven team tools are generated from their
// declarations: every one takes workspace, the run tools require runId,
// and arguments are refused before any store is read (no principal, no
// database here).
func TestCatalogSchemas(t *testing.T) {
	tools := map[string]mcpserver.Tool{}
	for _, tl := range Register(mcpserver.New(nil), nil) {
		tools[tl.Def.Name] = tl
	}
	required := map[string][]string{"list_workspaces": nil, "list_runs": nil, "get_run": {"runId"}, "run_trends": nil,
		"cache_stats": nil, "why_did_rerun": {"runId", "taskId"}, "compare_runs": {"runId"}}
	if len(tools) != len(required) {
		t.Fatalf("catalog has %d tools, want %d", len(tools), len(required))
	}
	for name, req := range required {
		tl, ok := tools[name]
		if !ok {
			t.Errorf("no tool %s", name)
			continue
		}
		var in struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(tl.Def.InputSchema, &in); err != nil {
			t.Fatal(err)
		}
		if _, ok := in.Properties["workspace"]; !ok && name != "list_workspaces" {
			t.Errorf("%s does not take workspace: %s", name, tl.Def.InputSchema)
		}
		slices.Sort(in.Required)
		if !slices.Equal(in.Required, req) {
			t.Errorf("%s requires %v, want %v", name, in.Required, req)
		}
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"why_did_rerun", `{"runId": "01H", "taskId": "#build"}`, `"taskId"`},
		{"get_run", `{}`, `"runId"`},
		{"list_runs", `{"limit": "10"}`, `"limit"`},
		{"run_trends", `{"bucket": "week"}`, `"bucket"`},
		{"cache_stats", `{"workspace": 7}`, `"workspace"`},
	} {
		_, err := tools[tc.tool].Handler(context.Background(), &mcpserver.Call{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v; want a refusal naming %s", tc.tool, tc.args, err, tc.want)
		}
	}
}
