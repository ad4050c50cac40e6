//go:build !windows

package parity_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// promptRow is one prompt and the tool whose answer it quotes.
type promptRow struct {
	prompt string
	args   map[string]string
	tool   string
	targs  map[string]any
}

// promptsQuoteTheTools gets each prompt the daemon lists and checks that
// the JSON it quotes is the answer of the tool it names, which the tool
// rows compare with the verbs; a listed prompt without a row fails.
func promptsQuoteTheTools(t *testing.T, cs *mcp.ClientSession, h hist) {
	rows := []promptRow{
		{prompt: "diagnose-failure", tool: "getFailures", targs: map[string]any{}},
		{prompt: "diagnose-failure", args: map[string]string{"runId": h.failedRun}, tool: "getFailures", targs: map[string]any{"runId": h.failedRun}},
		{prompt: "explain-rerun", args: map[string]string{"taskId": "lib#build"}, tool: "whyDidThisRerun", targs: map[string]any{"taskId": "lib#build"}},
		{prompt: "explain-rerun", args: map[string]string{"taskId": "app#test", "runId": h.failedRun}, tool: "whyDidThisRerun", targs: map[string]any{"taskId": "app#test", "runId": h.failedRun}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	have := map[string]bool{}
	for _, r := range rows {
		have[r.prompt] = true
	}
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		if !have[p.Name] {
			t.Errorf("prompt %s has no row in the parity table (tests/parity)", p.Name)
		}
	}
	for _, r := range rows {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: r.prompt, Arguments: r.args})
		if err != nil || len(res.Messages) != 1 {
			t.Fatalf("prompts/get %s %v: %v %+v", r.prompt, r.args, err, res)
		}
		tc, ok := res.Messages[0].Content.(*mcp.TextContent)
		if !ok {
			t.Fatalf("prompts/get %s: the message is not text: %+v", r.prompt, res.Messages[0].Content)
		}
		_, rest, ok1 := strings.Cut(tc.Text, "```json\n")
		quoted, _, ok2 := strings.Cut(rest, "\n```")
		if !ok1 || !ok2 {
			t.Fatalf("prompts/get %s quotes no JSON block:\n%s", r.prompt, tc.Text)
		}
		if strings.Contains(tc.Text, secret) {
			t.Errorf("prompts/get %s holds the secret in clear", r.prompt)
		}
		got := decode(t, r.prompt+"'s quoted JSON", []byte(quoted))
		want := callTool(t, cs, r.tool, r.targs)
		if d := diff("", got, want); len(d) > 0 {
			t.Errorf("prompt %s %v quotes other JSON than %s %v:\n%s", r.prompt, r.args, r.tool, r.targs, strings.Join(d, "\n"))
		}
	}
}
