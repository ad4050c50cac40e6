//go:build !windows

package platform_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEveryToolTakesWorkspace: each tool's input schema declares the
// optional workspace argument, list_workspaces included.
func TestEveryToolTakesWorkspace(t *testing.T) {
	ts := seed(t)
	r := do(t, "POST", ts.p.srv.URL+"/mcp", ts.acme, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				InputSchema struct {
					Properties map[string]any `json:"properties"`
					Required   []string       `json:"required"`
				} `json:"inputSchema"`
			}
		} `json:"result"`
	}
	if err := json.Unmarshal(r.body, &list); err != nil || len(list.Result.Tools) == 0 {
		t.Fatalf("tools/list: %d %s", r.status, r.body)
	}
	for _, tool := range list.Result.Tools {
		if _, ok := tool.InputSchema.Properties["workspace"]; !ok {
			t.Errorf("%s takes no workspace argument (properties %v)", tool.Name, tool.InputSchema.Properties)
		}
		for _, req := range tool.InputSchema.Required {
			if req == "workspace" {
				t.Errorf("%s requires workspace; it is optional", tool.Name)
			}
		}
	}
}

// TestListWorkspacesWorkspaceArgument: list_workspaces {workspace} lists
// that workspace (by id or slug), an unknown one is an isError naming it,
// and a pinned token ignores the argument.
func TestListWorkspacesWorkspaceArgument(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	slugs := func(res callResult) []string {
		list, ok := res.Struct["workspaces"].([]any)
		if !ok {
			return []string{"(no list: " + res.text() + ")"}
		}
		var out []string
		for _, w := range list {
			out = append(out, w.(map[string]any)["slug"].(string))
		}
		return out
	}
	for _, arg := range []string{ts.acmeAPI, "api"} {
		if got := slugs(call(t, base, ts.acme, "list_workspaces", map[string]any{"workspace": arg})); strings.Join(got, ",") != "api" {
			t.Errorf("list_workspaces {workspace: %q} = %v; want api alone", arg, got)
		}
	}
	if got := slugs(call(t, base, ts.acme, "list_workspaces", nil)); strings.Join(got, ",") != "web,api" {
		t.Errorf("list_workspaces {} = %v; want every workspace, web then api", got)
	}
	for _, arg := range []string{"nope", ts.betaWeb} {
		res := call(t, base, ts.acme, "list_workspaces", map[string]any{"workspace": arg})
		if !res.IsError || !strings.Contains(res.text(), "unknown workspace") || strings.Contains(res.text(), "b1b1b1") {
			t.Errorf("list_workspaces {workspace: %q} (not acme's): %+v; want an isError saying it is unknown", arg, res)
		}
	}
	pinned, _ := ts.p.token(t, "acme", "read", "api")
	res := call(t, base, pinned, "list_workspaces", map[string]any{"workspace": "web"})
	if got := slugs(res); res.IsError || strings.Join(got, ",") != "api" {
		t.Errorf("list_workspaces {workspace: web} with a token pinned to api = %v (%+v); want api (the argument ignored)", got, res)
	}
}
