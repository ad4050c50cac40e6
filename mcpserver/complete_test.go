package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

func TestCompleteAndSubscribe(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.SetPrompts([]Prompt{{Def: mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "taskId"}}},
		Complete: map[string]Completer{"taskId": func(ctx context.Context, v string) ([]string, error) {
			var out []string
			for i := 0; i < 150; i++ {
				out = append(out, v+string(rune('a'+i%26)))
			}
			return out, nil
		}}}})
	if err := f.srv.SetResources([]Resource{{Def: mcp.Resource{URI: "vx://runs/latest", Name: "latest"}, Subscribable: true}, {Def: mcp.Resource{URI: "vx://fixed", Name: "fixed"}}}, nil); err != nil {
		t.Fatal(err)
	}
	var notes []*jsonrpc.Message
	ss := f.srv.NewSession(func(m *jsonrpc.Message) { notes = append(notes, m) })
	defer ss.Close()
	send := func(body string) string {
		return string(ss.HandleBody(context.Background(), []byte(body), nil))
	}
	init := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if !strings.Contains(init, `"completions":{}`) || !strings.Contains(init, `"subscribe":true`) {
		t.Errorf("initialize does not declare completions and subscribe: %s", init)
	}
	got := send(`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"taskId","value":"web#"}}}`)
	var r struct {
		Result mcp.CompleteResult `json:"result"`
	}
	if json.Unmarshal([]byte(got), &r) != nil || len(r.Result.Completion.Values) != 100 || !r.Result.Completion.HasMore || r.Result.Completion.Total != 150 || r.Result.Completion.Values[0] != "web#a" {
		t.Errorf("completion: %s", got)
	}
	for _, tc := range []struct{ params, want string }{
		{`{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""}}`, `unknown prompt \"nope\"`},
		{`{"ref":{"type":"ref/resource","uri":"vx://nope/{x}"},"argument":{"name":"x","value":""}}`, `unknown resource template`},
		{`{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"runId","value":""}}`, `has no argument \"runId\"; its arguments: taskId`},
		{`{"ref":{"type":"ref/other"},"argument":{"name":"x","value":""}}`, `is not ref/prompt or ref/resource`},
	} {
		if got := send(`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":` + tc.params + `}`); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s", tc.params, got)
		}
	}
	if got := send(`{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"vx://fixed"}}`); !strings.Contains(got, `"code":-32602`) {
		t.Errorf("subscribing to a resource without updates: %s", got)
	}
	if got := send(`{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"vx://runs/latest"}}`); !strings.Contains(got, `"result":{}`) {
		t.Fatalf("subscribe: %s", got)
	}
	f.srv.ResourceUpdated("vx://fixed")
	f.srv.ResourceUpdated("vx://runs/latest")
	if len(notes) != 1 || notes[0].Method != mcp.NotifyResourceUpdated || !strings.Contains(string(notes[0].Params), "vx://runs/latest") {
		t.Errorf("notifications: %v", notes)
	}
	send(`{"jsonrpc":"2.0","id":6,"method":"resources/unsubscribe","params":{"uri":"vx://runs/latest"}}`)
	f.srv.ResourceUpdated("vx://runs/latest")
	if len(notes) != 1 {
		t.Errorf("an update after unsubscribe: %d notifications", len(notes))
	}
}
