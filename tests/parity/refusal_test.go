//go:build !windows

package parity_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusalRow is a question the operation refuses: the tool answers
// isError `argument "ARG": MSG`, the verb exits CODE printing
// `vx: NAME: MSG` — one message, named as each side spells the argument.
type refusalRow struct {
	tool string
	args map[string]any
	verb []string
	code int
}

// TestRefusalsAreTheSame: a refused argument reads the same through the
// tool and the verb, the argument named as each side spells it.
func TestRefusalsAreTheSame(t *testing.T) {
	root := workspace(t, "ws")
	runID(t, root, 1, "build", "test", "--continue")
	endpoint, token := startDaemon(t, root)
	cs := connect(t, endpoint, token, revStateless)
	for _, r := range []refusalRow{
		{tool: "whyDidThisRerun", args: map[string]any{"taskId": "nope#build"}, verb: []string{"why", "nope#build", "--format", "json"}, code: 2},
		{tool: "whyDidThisRerun", args: map[string]any{"taskId": "lib#build", "runId": "ffffffffffff"}, verb: []string{"why", "lib#build", "--run", "ffffffffffff", "--format", "json"}, code: 2},
		{tool: "getTaskLog", args: map[string]any{"taskId": "app#nope"}, verb: []string{"last", "--log", "app#nope", "--format", "json"}, code: 2},
		{tool: "getLastRun", args: map[string]any{"runId": "ffffffffffff"}, verb: []string{"last", "--run", "ffffffffffff", "--format", "json"}, code: 2},
		{tool: "getConfig", args: map[string]any{"target": "nope"}, verb: []string{"show", "nope", "--format", "json"}, code: 2},
		{tool: "pruneCache", args: map[string]any{"olderThan": "7 days"}, verb: []string{"cache", "prune", "--older-than", "7 days", "--dry-run", "--format", "json"}, code: 2},
		{tool: "pruneCache", args: map[string]any{"maxSize": "lots"}, verb: []string{"cache", "prune", "--max-size", "lots", "--dry-run", "--format", "json"}, code: 2},
		{tool: "searchDocs", args: map[string]any{"query": "  "}, verb: []string{"docs", "  ", "--format", "json"}, code: 2},
		// Each rule of an input's schema, refused alike: the tool
		// validates the agent's arguments against it, the verb its
		// filled input (opkit.Check), in the same words.
		{tool: "whyDidThisRerun", args: map[string]any{"taskId": "#build"}, verb: []string{"why", "#build", "--format", "json"}, code: 2},
		{tool: "getTaskLog", args: map[string]any{"taskId": "lib"}, verb: []string{"last", "--log", "lib", "--format", "json"}, code: 2},
		{tool: "getTaskLog", args: map[string]any{"taskId": "lib# "}, verb: []string{"last", "--log", "lib# ", "--format", "json"}, code: 2},
		{tool: "getLastRun", args: map[string]any{"runId": ""}, verb: []string{"last", "--run", "", "--format", "json"}, code: 2},
		{tool: "getLastRun", args: map[string]any{"runId": " "}, verb: []string{"last", "--run", " ", "--format", "json"}, code: 2},
		{tool: "listTasks", args: map[string]any{"filter": []any{"lib", " "}}, verb: []string{"show", "--filter", "lib", "--filter", " ", "--format", "json"}, code: 2},
		{tool: "listTasks", args: map[string]any{"affected": "-x"}, verb: []string{"show", "--affected=-x", "--format", "json"}, code: 2},
		{tool: "getConfig", args: map[string]any{"target": " "}, verb: []string{"show", " ", "--format", "json"}, code: 2},
		{tool: "pruneCache", args: map[string]any{"olderThan": " "}, verb: []string{"cache", "prune", "--older-than", " ", "--dry-run", "--format", "json"}, code: 2},
		// Kept out, differing (reported on issue 10):
		//  - listTasks {filter: "nope"}: workspace.Select's error is no
		//    argument refusal, so the tool answers `--filter "nope" matches
		//    no project`, naming the CLI's flag, not `argument "filter"`
		//    (vx show exits 1 with the same text).
	} {
		t.Run(r.tool+" "+strings.Join(r.verb, " "), func(t *testing.T) { refusedAlike(t, cs, root, r) })
	}
}

// refusedAlike checks that the tool refuses the row's arguments and the
// verb its command line with the same message.
func refusedAlike(t *testing.T, cs *mcp.ClientSession, root string, r refusalRow) {
	t.Helper()
	toolMsg := refusal(t, cs, r.tool, r.args)
	res := run(t, root, vxBin, r.verb...)
	if res.Code != r.code || res.Stdout != "" {
		t.Fatalf("want exit %d and nothing on stdout\n%s", r.code, res)
	}
	line := strings.TrimSpace(res.Stderr)
	_, verbMsg, ok := strings.Cut(strings.TrimPrefix(line, "vx: "), ": ")
	if !ok || verbMsg != toolMsg {
		t.Errorf("the refusals differ:\n tool: %s\n verb: %s", toolMsg, line)
	}
}

// refusal calls a tool that must refuse an argument and returns the
// message after `argument "NAME": `.
func refusal(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	_, msg, ok := strings.Cut(text, `": `)
	if !res.IsError || !strings.HasPrefix(text, `argument "`) || !ok {
		t.Fatalf("%s %v: want an isError refusal `argument \"NAME\": …`, got %q", name, args, text)
	}
	return msg
}
