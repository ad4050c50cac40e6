package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

// TestKeepAlivesWhileAnswersRun: a session-era POST that accepts SSE
// gets keep-alive comments while its tool runs, each of several running at
// once gets its own, a quick one gets none, and a JSON-only client gets a
// plain JSON answer. No clock is asserted: each running tool is released
// only once the test has read two keep-alives from a stream.
func TestKeepAlivesWhileAnswersRun(t *testing.T) {
	const every = 250 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{Port: ln.Addr().(*net.TCPAddr).Port}
	d.URL = fmt.Sprintf("http://127.0.0.1:%d", d.Port)
	d.Srv = mcpserver.New(&mcpserver.Options{Name: "vxd-test", Version: "0.0.1"})
	var mu sync.Mutex
	release := map[string]chan struct{}{}
	gate := func(name string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if release[name] == nil {
			release[name] = make(chan struct{})
		}
		return release[name]
	}
	opened := map[string]func(){}
	for _, g := range []string{"a", "b", "c", "json"} {
		opened[g] = sync.OnceFunc(func() { close(gate(g)) })
		t.Cleanup(opened[g]) // a failed call's tool is released too
	}
	obj := json.RawMessage(`{"type":"object"}`)
	d.Srv.SetTools([]mcpserver.Tool{{Def: mcp.Tool{Name: "wait", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
		var in struct {
			Gate string `json:"gate"`
		}
		_ = json.Unmarshal(c.Arguments, &in)
		if in.Gate != "" {
			select {
			case <-gate(in.Gate):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return map[string]string{"released": in.Gate}, nil
	}}})
	mux := http.NewServeMux()
	mh := NewMCPHandler(d.Srv, &MCPOptions{KeepAlive: every}).(*mcpHandler)
	mux.Handle("/mcp", mh)
	hs := &http.Server{Handler: Guard(mux, GuardOptions{Port: d.Port, Token: testToken})}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { d.Srv.Close(); _ = hs.Close() })
	sid := initSession(t, d, "2025-06-18")
	open := func(id int, g, accept string) *http.Response {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait","arguments":{"gate":%q}}}`, id, g)
		// A bound, not a clock: a stream that sends no keep-alive fails
		// here instead of hanging the test.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": accept, "Authorization": "Bearer " + testToken,
			"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	sse := "application/json, text/event-stream"
	// A JSON-only client's call runs beside the SSE ones and is released
	// only after they have seen keep-alives, so intervals passed while it ran.
	jsonDone := make(chan string, 1)
	go func() {
		resp := open(100, "json", "application/json")
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		jsonDone <- resp.Header.Get("Content-Type") + " " + string(b)
	}()
	var wg sync.WaitGroup
	for i, g := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := open(i+1, g, sse)
			defer resp.Body.Close()
			r := bufio.NewReader(resp.Body)
			var seen []string
			for beats := 0; beats < 2; {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Errorf("call %s: the stream ended after %q: %v", g, seen, err)
					return
				}
				seen = append(seen, line)
				if line == ": keep-alive\n" {
					beats++
				}
			}
			opened[g]()
			rest, _ := io.ReadAll(r)
			if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(string(rest), fmt.Sprintf(`"released":%q`, g)) {
				t.Errorf("call %s with SSE: %s, then %q", g, resp.Header.Get("Content-Type"), rest)
			}
		}()
	}
	wg.Wait()
	opened["json"]()
	if got := <-jsonDone; strings.Contains(got, "keep-alive") || !strings.HasPrefix(got, "application/json ") || !strings.Contains(got, `"released":"json"`) {
		t.Errorf("a JSON-only client: %q", got)
	}
	resp, body := do(t, d, rawReq{body: `{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{"name":"wait","arguments":{}}}`,
		headers: map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18", "Accept": sse}})
	if strings.Contains(body, "keep-alive") || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("a quick call: %s %q", resp.Header.Get("Content-Type"), body)
	}
	// Nothing running: the shared timer is left unarmed (no wake-ups
	// while idle) once its next tick finds nothing due.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(every) {
		mh.beats.mu.Lock()
		armed, running := mh.beats.armed, len(mh.beats.due)
		mh.beats.mu.Unlock()
		if !armed && running == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle: keep-alive timer armed %v with %d answers running", armed, running)
		}
	}
}
