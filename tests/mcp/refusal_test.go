//go:build !windows

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

// The refusals of a task named like a flag and of an empty filter array.
const (
	flagAsTask   = `must be a task name such as build or web#build, never a flag (force, filter and affected are arguments of their own)`
	flagAsTask0  = `argument "tasks[0]": ` + flagAsTask + `, not "--force"`
	flagAsTask1  = `argument "tasks[1]": ` + flagAsTask + `, not "--"`
	emptyFilters = `argument "filter": must be a project selector or a non-empty array of them (omit filter to select every project), not an empty array`
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
	{"a flag as a task of runTasks", "runTasks", `{"tasks":["--force","build"]}`, flagAsTask0},
	{"a flag as a task of planTasks", "planTasks", `{"tasks":["--force","build"]}`, flagAsTask0},
	{"an end of flags as a task", "planTasks", `{"tasks":["build","--"]}`, flagAsTask1},
	{"empty filter array of listTasks", "listTasks", `{"filter":[]}`, emptyFilters},
	{"empty filter array of planTasks", "planTasks", `{"tasks":["build"],"filter":[]}`, emptyFilters},
	{"empty filter array of runTasks", "runTasks", `{"tasks":["build"],"filter":[]}`, emptyFilters},
	{"unknown project of getRunHistory", "getRunHistory", `{"project":"libb"}`,
		`no project named "libb" in this workspace or its history (did you mean lib`},
	{"misspelt task of getRunHistory", "getRunHistory", `{"task":"biuld"}`,
		`no task named "biuld" in this workspace or its history (did you mean build`},
	{"a flag as the affected ref", "planTasks", `{"tasks":["build"],"affected":"--output=/tmp/x"}`,
		`"affected": must be true, false or a git ref (a branch, tag or commit, never starting with "-"), not "--output=/tmp/x"`},
	{"misspelt task of a project", "getRunHistory", `{"project":"lib","task":"biuld"}`, `(did you mean build`},
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
					{"searchDocs", 0, 1},
					{"searchDocs", 500, 50},
				} {
					t.Run(fmt.Sprintf("%s %v", c.tool, c.limit), func(t *testing.T) {
						args := map[string]any{"limit": c.limit}
						if c.tool == "searchDocs" {
							args["query"] = "task"
						}
						a := callOK(t, cs, c.tool, args)
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

// TestBadTaskIDInURIAndPrompt: a taskId that is no task id, in a resource
// URI or a prompt argument, is the request's fault: JSON-RPC -32602 naming
// taskId, not -32603 "internal error".
func TestBadTaskIDInURIAndPrompt(t *testing.T) {
	root := workspace(t, "hist")
	endpoint, token, _ := startDaemon(t, root)
	c := newRaw(endpoint, token)
	c.initialize(t)
	for _, req := range []string{
		`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"vx://tasks/build/log"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"vx://tasks/%23build/log"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"vx://tasks/%zz/log"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"explain-rerun","arguments":{"taskId":"build"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"explain-rerun","arguments":{"taskId":"nosuch#build"}}}`,
	} {
		resp, body := c.post(t, req)
		r := reply(t, resp, body)
		if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "taskId") {
			t.Errorf("%s: want JSON-RPC error -32602 naming taskId, got error %+v result %s", req, r.Error, r.Result)
		}
	}
}

// TestExplainWithoutEntry: explainCacheKey for a task with no cache entry
// answers found:false with no figures at all (a zero would read as an
// entry that exited 0 in 0 ms with 0 bytes).
func TestExplainWithoutEntry(t *testing.T) {
	root := workspace(t, "hist")
	endpoint, token, _ := startDaemon(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	a := callOK(t, cs, "explainCacheKey", map[string]any{"taskId": "lib#build"})
	var out map[string]any
	a.structured(t, &out)
	if out["found"] != false {
		t.Fatalf("explainCacheKey before any run: %s; want found false", a.text)
	}
	for _, k := range []string{"exitCode", "durationMs", "bytes", "files", "key", "command", "created"} {
		if _, ok := out[k]; ok {
			t.Errorf("explainCacheKey without an entry has %s: %s", k, a.text)
		}
	}
}
