package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusals are arguments the tools must refuse with an isError result
// whose text names the argument, rather than answer a question the agent
// did not ask. Raw JSON, so that every shape can be sent.
var refusals = []struct {
	name, tool, args, want string
}{
	{"unknown key", "getRunHistory", `{"tsk":"build"}`, `"tsk"`},
	{"unknown key in scope", "getCacheStats", `{"scope":{"task":"build"}}`, `scope.task`},
	{"limit as a string", "getRunHistory", `{"limit":"10"}`, `"limit"`},
	{"limit as a boolean", "getRunHistory", `{"limit":true}`, `"limit"`},
	{"limit null", "runTrends", `{"limit":null}`, `"limit"`},
	{"limit not finite", "getRunHistory", `{"limit":1e999}`, `"limit"`},
	{"empty filter", "listTasks", `{"filter":""}`, `"filter"`},
	{"empty filter in a list", "listTasks", `{"filter":["lib",""]}`, `filter`},
	{"empty project", "listTasks", `{"project":""}`, `"project"`},
	{"empty target", "getConfig", `{"target":""}`, `"target"`},
	{"missing target", "getConfig", `{}`, `"target"`},
	{"task id without project", "explainCacheKey", `{"taskId":"#build"}`, `"taskId"`},
	{"task id without task", "whyDidThisRerun", `{"taskId":"app#"}`, `"taskId"`},
	{"task id as a number", "getTaskLog", `{"taskId":7}`, `"taskId"`},
	{"empty run id", "getTaskLog", `{"taskId":"lib#build","runId":""}`, `"runId"`},
	{"empty run id of getFailures", "getFailures", `{"runId":""}`, `"runId"`},
	{"empty run id of compareRuns", "compareRuns", `{"runId":""}`, `"runId"`},
	{"bad bucket", "runTrends", `{"bucket":"week"}`, `"bucket"`},
	{"task id where a task name goes", "getRunHistory", `{"task":"web#build"}`, `task`},
	{"dryRun as a string", "pruneCache", `{"dryRun":"false"}`, `"dryRun"`},
	{"tasks as a string", "planTasks", `{"tasks":"build"}`, `"tasks"`},
	{"empty task name", "runTasks", `{"tasks":[""]}`, `tasks`},
	{"affected as a number", "listTasks", `{"affected":1}`, `"affected"`},
}

// TestRefusals runs every refusal over HTTP and through the shim, then the
// limit clamps, and checks that no refusal text carries the secret.
func TestRefusals(t *testing.T) {
	secret := fmt.Sprintf("refusal-secret-%d", time.Now().UnixNano())
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "hist")
			cs := tr.connect(t, root, nil, "TOKEN="+secret)
			for _, rc := range refusals {
				t.Run(rc.name, func(t *testing.T) {
					a := callRefused(t, cs, rc.tool, json.RawMessage(rc.args), rc.want)
					if n := strings.Count(strings.TrimSpace(a.text), "\n"); n > 0 {
						t.Errorf("%s refusal is %d lines, want one: %s", rc.tool, n+1, a.text)
					}
				})
			}
			t.Run("unknown tool is -32602", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "listTask", Arguments: map[string]any{}})
				var we *jsonrpc.Error
				if !errors.As(err, &we) || we.Code != -32602 {
					t.Errorf("calling an unknown tool: %v, want JSON-RPC error -32602", err)
				}
			})
			t.Run("a refusal quoting the secret is masked", func(t *testing.T) {
				a := call(t, cs, "getConfig", map[string]any{"target": secret})
				if strings.Contains(string(a.raw), secret) {
					t.Errorf("the answer quotes the secret's value: %s", a.raw)
				}
			})
			t.Run("limits clamp and say so", func(t *testing.T) {
				for _, c := range []struct {
					tool  string
					limit float64
					want  int
				}{
					{"getRunHistory", 1000, 500},
					{"getRunHistory", -3, 1},
					{"getRunHistory", 0, 1},
					{"runTrends", 5000, 1000},
					{"runTrends", 0, 1},
				} {
					t.Run(fmt.Sprintf("%s %v", c.tool, c.limit), func(t *testing.T) {
						a := callOK(t, cs, c.tool, map[string]any{"limit": c.limit})
						var out struct {
							Limit int    `json:"limit"`
							Note  string `json:"note"`
						}
						a.structured(t, &out)
						if out.Limit != c.want || out.Note == "" {
							t.Errorf("%s limit %v: answered limit %d note %q; want limit %d and a note", c.tool, c.limit, out.Limit, out.Note, c.want)
						}
					})
				}
			})
		})
	}
}

// TestNonObjectArguments sends arguments that are not an object, and an
// unknown tool, by hand: JSON-RPC -32602 either way.
func TestNonObjectArguments(t *testing.T) {
	root := workspace(t, "hist")
	endpoint, token, _ := startDaemon(t, root)
	c := newRaw(endpoint, token)
	c.initialize(t)
	for _, params := range []string{
		`{"name":"listTasks","arguments":"project=lib"}`,
		`{"name":"listTasks","arguments":["lib"]}`,
		`{"name":"getRunHistory","arguments":42}`,
		`{"name":"noSuchTool","arguments":{}}`,
	} {
		r := c.callRaw(t, params)
		if r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("tools/call %s: want JSON-RPC error -32602, got error %+v result %s", params, r.Error, r.Result)
		}
	}
}
