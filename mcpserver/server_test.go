package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// started closes when the slow tool is running, so a test can cancel it.
type fixture struct {
	srv     *Server
	started chan struct{}
}

func newFixture(t *testing.T, opts *Options) *fixture {
	t.Helper()
	f := &fixture{started: make(chan struct{}, 1)}
	if opts == nil {
		opts = &Options{}
	}
	opts.Mask = func(s string) string { return strings.ReplaceAll(s, "hunter2", "***") }
	f.srv = New(opts)
	obj := json.RawMessage(`{"type":"object"}`)
	f.srv.SetTools([]Tool{
		{Def: mcp.Tool{Name: "echo", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true)}},
			Handler: func(ctx context.Context, c *Call) (any, error) {
				return map[string]json.RawMessage{"args": c.Arguments}, nil
			}},
		{Def: mcp.Tool{Name: "progress", InputSchema: obj}, Handler: func(ctx context.Context, c *Call) (any, error) {
			for i := 1; i <= 3; i++ {
				c.Progress(float64(i), 3, fmt.Sprintf("step %d", i))
			}
			c.Log(mcp.LevelInfo, "done with hunter2")
			c.Log(mcp.LevelDebug, "too quiet")
			return map[string]int{"steps": 3}, nil
		}},
		{Def: mcp.Tool{Name: "slow", InputSchema: obj}, Handler: func(ctx context.Context, c *Call) (any, error) {
			f.started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		{Def: mcp.Tool{Name: "fail", InputSchema: obj}, Handler: func(ctx context.Context, c *Call) (any, error) {
			return nil, errors.New("token hunter2 was refused")
		}},
		{Def: mcp.Tool{Name: "panics", InputSchema: obj}, Handler: func(ctx context.Context, c *Call) (any, error) {
			panic("boom hunter2")
		}},
	})
	if err := f.srv.SetResources(
		[]Resource{{Def: mcp.Resource{URI: "vx://config", Name: "config"}, Read: func(ctx context.Context) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: "vx://config", Text: "{}"}}}, nil
		}}},
		[]ResourceTemplate{{Def: mcp.ResourceTemplate{URITemplate: "vx://task/{taskId}/log", Name: "log"},
			Read: func(ctx context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: uri, Text: "log of " + vars["taskId"]}}}, nil
			}}},
	); err != nil {
		t.Fatal(err)
	}
	f.srv.SetPrompts([]Prompt{{Def: mcp.Prompt{Name: "diagnose", Arguments: []mcp.PromptArgument{{Name: "runId", Required: true}}},
		Get: func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: mcp.TextContent("diagnose " + args["runId"])}}}, nil
		}}})
	return f
}

type recorder struct {
	mu   sync.Mutex
	msgs []*jsonrpc.Message
}

func (r *recorder) emit(m *jsonrpc.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
}

func (r *recorder) methods() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.msgs {
		out = append(out, m.Method)
	}
	return out
}

func initSession(t *testing.T, srv *Server, rev string, notify func(*jsonrpc.Message)) *Session {
	t.Helper()
	ss := srv.NewSession(notify)
	reply := ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize",`+
		`"params":{"protocolVersion":"`+rev+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`), nil)
	if !strings.Contains(string(reply), `"result"`) {
		t.Fatalf("initialize: %s", reply)
	}
	return ss
}

func TestExchanges(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		name string
		rev  string // "" means: do not initialize
		in   string
		want []string // substrings of the reply; empty reply when nil
	}{
		{name: "ping before initialize", in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, want: []string{`{"jsonrpc":"2.0","id":1,"result":{}}`}},
		{name: "tools/list before initialize", in: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, want: []string{`"code":-32600`, "initialize first"}},
		{name: "discover is unknown", in: `{"jsonrpc":"2.0","id":"d","method":"server/discover"}`, want: []string{`"id":"d"`, `"code":-32601`}},
		{name: "negotiate unknown revision", in: `{"jsonrpc":"2.0","id":1,"method":"initialize",` +
			`"params":{"protocolVersion":"2031-01-01"}}`, want: []string{`"protocolVersion":"2025-11-25"`, `"tools":{"listChanged":true}`, `"logging":{}`}},
		{name: "negotiate old revision", in: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}`, want: []string{`"protocolVersion":"2024-11-05"`}},
		{name: "initialize without version", in: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, want: []string{`"code":-32602`}},
		{name: "initialize twice", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, want: []string{`"code":-32600`}},
		{name: "parse error", rev: "2025-06-18", in: `{"jsonrpc":"2.0",`, want: []string{`"id":null`, `"code":-32700`}},
		{name: "bad envelope", rev: "2025-06-18", in: `{"jsonrpc":"1.0","id":5,"method":"ping"}`, want: []string{`"id":5`, `"code":-32600`}},
		{name: "unknown method", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/frobnicate"}`, want: []string{`"code":-32601`}},
		{name: "tools/list", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, want: []string{`"name":"echo"`, `"readOnlyHint":true`}},
		{name: "call echo", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call",` +
			`"params":{"name":"echo","arguments":{"a":1}}}`, want: []string{`"structuredContent":{"args":{"a":1}}`, `"text":"{\"args\":{\"a\":1}}"`}},
		{name: "call without arguments", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`, want: []string{`"structuredContent":{"args":{}}`}},
		{name: "unknown tool", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`, want: []string{`"code":-32602`, "nope"}},
		{name: "array arguments", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`, want: []string{`"code":-32602`, "an array"}},
		{name: "string arguments", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":"x"}}`, want: []string{`"code":-32602`}},
		{name: "tool error masked", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fail"}}`, want: []string{`"isError":true`, `token *** was refused`}},
		{name: "tool panic masked", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panics"}}`, want: []string{`"code":-32603`, `boom ***`}},
		{name: "notification only", rev: "2025-06-18", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{name: "batch under 2025-06-18", rev: "2025-06-18", in: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, want: []string{`"id":null`, `"code":-32600`, "2025-03-26"}},
		{name: "batch under 2025-03-26", rev: "2025-03-26", in: `[{"jsonrpc":"2.0","id":1,` +
			`"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,` +
			`"method":"tools/call","params":{"name":"echo"}}]`,
			want: []string{`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,`}},
		{name: "batch of notifications", rev: "2025-03-26", in: `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`},
		{name: "empty batch", rev: "2025-03-26", in: `[]`, want: []string{`"code":-32600`}},
		{name: "initialize in batch", rev: "2025-03-26", in: `[{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-03-26"}},{"jsonrpc":"2.0","id":10,"method":"ping"}]`,
			want: []string{`{"jsonrpc":"2.0","id":9,"error":{"code":-32600`, `{"jsonrpc":"2.0","id":10,"result":{}}`}},
		{name: "read resource", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"vx://config"}}`, want: []string{`"text":"{}"`}},
		{name: "read template", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"vx://task/app%23build/log"}}`, want: []string{`log of app#build`}},
		{name: "read unknown resource", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"vx://nope"}}`, want: []string{`"code":-32002`}},
		{name: "list templates", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}`, want: []string{`"uriTemplate":"vx://task/{taskId}/log"`}},
		{name: "get prompt", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"diagnose","arguments":{"runId":"r1"}}}`, want: []string{`diagnose r1`}},
		{name: "prompt missing argument", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"diagnose"}}`, want: []string{`"code":-32602`, "runId"}},
		{name: "set bad level", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}`, want: []string{`"code":-32602`}},
		{name: "set level", rev: "2025-06-18", in: `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`, want: []string{`"result":{}`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ss *Session
			if tc.rev == "" {
				ss = f.srv.NewSession(nil)
			} else {
				ss = initSession(t, f.srv, tc.rev, nil)
			}
			defer ss.Close()
			reply := ss.HandleBody(context.Background(), []byte(tc.in), nil)
			if tc.want == nil {
				if reply != nil {
					t.Fatalf("want no reply, got %s", reply)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(string(reply), w) {
					t.Errorf("reply %s\nlacks %s", reply, w)
				}
			}
			if strings.Contains(string(reply), "hunter2") {
				t.Errorf("reply leaks the secret: %s", reply)
			}
		})
	}
}

func TestProgressAndLog(t *testing.T) {
	f := newFixture(t, nil)
	ss := initSession(t, f.srv, "2025-06-18", nil)
	var rec recorder
	reply := ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"tok"}}}`), rec.emit)
	if !strings.Contains(string(reply), `"structuredContent":{"steps":3}`) {
		t.Fatalf("reply %s", reply)
	}
	got := strings.Join(rec.methods(), ",")
	if got != "notifications/progress,notifications/progress,notifications/progress,notifications/message" {
		t.Fatalf("emitted %s", got)
	}
	b, _ := jsonrpc.Encode(rec.msgs)
	if !strings.Contains(string(b), `"progressToken":"tok","progress":3,"total":3,"message":"step 3"`) || strings.Contains(string(b), "hunter2") {
		t.Errorf("notifications: %s", b)
	}

	// Without a token there is no progress.
	var quiet recorder
	ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress"}}`), quiet.emit)
	if got := strings.Join(quiet.methods(), ","); got != "notifications/message" {
		t.Errorf("emitted without a token: %s", got)
	}
}

func TestCancel(t *testing.T) {
	f := newFixture(t, nil)
	ss := initSession(t, f.srv, "2025-06-18", nil)
	done := make(chan []byte)
	go func() {
		done <- ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow"}}`), nil)
	}()
	<-f.started
	// A ping is answered while the slow call runs.
	if r := ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), nil); !strings.Contains(string(r), `"result":{}`) {
		t.Fatalf("ping: %s", r)
	}
	if st := f.srv.Stats(); st.InFlight != 1 || st.Sessions != 1 {
		t.Errorf("stats while slow runs: %+v", st)
	}
	ss.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1"}}`), nil)
	if r := <-done; r != nil {
		t.Errorf("a cancelled request is owed no answer, got %s", r)
	}
	if st := f.srv.Stats(); st.InFlight != 0 || st.Requests < 3 {
		t.Errorf("stats after: %+v", st)
	}
}

func TestListChanged(t *testing.T) {
	f := newFixture(t, nil)
	var rec, pre recorder
	initSession(t, f.srv, "2025-06-18", rec.emit)
	f.srv.NewSession(pre.emit)  // never initialized: gets nothing
	f.srv.SetTools(f.srv.tools) // same catalog: no notification
	f.srv.SetTools(append(f.srv.tools, Tool{Def: mcp.Tool{Name: "new", InputSchema: json.RawMessage(`{"type":"object"}`)}}))
	f.srv.SetPrompts(nil)
	if got := strings.Join(rec.methods(), ","); got != "notifications/tools/list_changed,notifications/prompts/list_changed" {
		t.Errorf("initialized session got %q", got)
	}
	if len(pre.methods()) != 0 {
		t.Errorf("uninitialized session got %v", pre.methods())
	}
}

func TestSessionCap(t *testing.T) {
	f := newFixture(t, &Options{MaxSessions: 2})
	a := initSession(t, f.srv, "2025-06-18", nil)
	b := initSession(t, f.srv, "2025-06-18", nil)
	// Touch a so that b is the idlest.
	a.HandleBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), nil)
	c := initSession(t, f.srv, "2025-06-18", nil)
	select {
	case <-b.Done():
	default:
		t.Fatal("the idlest session was not ended")
	}
	if f.srv.Session(b.ID()) != nil || f.srv.Session(a.ID()) == nil || f.srv.Session(c.ID()) == nil {
		t.Error("wrong sessions left")
	}
	if n := f.srv.Stats().Sessions; n != 2 {
		t.Errorf("sessions = %d", n)
	}
	if len(a.ID()) != 32 {
		t.Errorf("session id %q is not 128 bits of hex", a.ID())
	}
}
