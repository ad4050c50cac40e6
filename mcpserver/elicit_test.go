package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// TestElicit: a session-era handler asks the user through elicitation/create
// on its request's stream and gets the client's answer; a client without
// the capability, or a request that cannot stream, offers no Elicit; in
// 2026-07-28 a handler's InputRequired becomes an input_required result.
func TestElicit(t *testing.T) {
	f := newFixture(t, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	f.srv.SetTools([]Tool{{Def: mcp.Tool{Name: "ask", InputSchema: obj}, Handler: func(ctx context.Context, c *Call) (any, error) {
		if c.Stateless != nil {
			if c.Stateless.RequestState == "s1" {
				return map[string]string{"answer": string(c.Stateless.InputResponses["q"])}, nil
			}
			return &InputRequired{Requests: map[string]mcp.InputRequest{"q": {Method: mcp.MethodElicit, Params: mcp.ElicitParams{Message: "sure?"}}}, State: "s1"}, nil
		}
		if c.Elicit == nil {
			return map[string]string{"answer": "cannot ask"}, nil
		}
		r, err := c.Elicit(ctx, mcp.ElicitParams{Message: "sure?", RequestedSchema: obj})
		if err != nil {
			return nil, err
		}
		return map[string]string{"answer": r.Action}, nil
	}}})
	open := func(caps string) *Session {
		ss := f.srv.NewSession(nil)
		t.Cleanup(ss.Close)
		ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize",`+
			`"params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`), nil)
		return ss
	}
	call := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask"}}`)

	ss := open(`{"elicitation":{}}`)
	var sent *jsonrpc.Message
	emit := func(m *jsonrpc.Message) {
		sent = m
		// The client answers on another POST while the call waits.
		go ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"action":"decline"}}`), nil)
	}
	if got := string(ss.HandleBody(context.Background(), call, emit)); !strings.Contains(got, `\"answer\":\"decline\"`) {
		t.Errorf("elicited call answered %s", got)
	}
	if sent == nil || sent.Method != mcp.MethodElicit || sent.Kind() != jsonrpc.KindRequest {
		t.Errorf("sent %+v", sent)
	}
	if got := string(ss.HandleBody(WithoutStream(context.Background()), call, emit)); !strings.Contains(got, "cannot ask") {
		t.Errorf("a JSON-only request was offered elicitation: %s", got)
	}
	if got := string(open(`{}`).HandleBody(context.Background(), call, nil)); !strings.Contains(got, "cannot ask") {
		t.Errorf("a client without elicitation was offered it: %s", got)
	}

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	first := string(f.srv.HandleStateless(context.Background(), mustDecode(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask",`+meta+`}}`), nil))
	if !strings.Contains(first, `"resultType":"input_required"`) || !strings.Contains(first, `"requestState":"s1"`) || !strings.Contains(first, `"method":"elicitation/create"`) {
		t.Errorf("first call: %s", first)
	}
	retry := string(f.srv.HandleStateless(context.Background(), mustDecode(t, `{"jsonrpc":"2.0","id":4,`+
		`"method":"tools/call","params":{"name":"ask","inputResponses":{"q":{"action":"accept"}},"requestState":"s1",`+meta+`}}`), nil))
	if !strings.Contains(retry, `"resultType":"complete"`) || !strings.Contains(retry, `accept`) {
		t.Errorf("retry: %s", retry)
	}
}

func mustDecode(t *testing.T, body string) *jsonrpc.Message {
	t.Helper()
	msgs, _, err := jsonrpc.Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return msgs[0]
}
