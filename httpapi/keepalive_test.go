package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
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
// gets a keep-alive comment every interval its tool runs, each of several
// running at once and started at different times gets its own, a quick
// one gets none, and a JSON-only client gets a plain JSON answer.
func TestKeepAlivesWhileAnswersRun(t *testing.T) {
	const every = 60 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &daemon{Port: ln.Addr().(*net.TCPAddr).Port}
	d.URL = fmt.Sprintf("http://127.0.0.1:%d", d.Port)
	d.Srv = mcpserver.New(&mcpserver.Options{Name: "vxd-test", Version: "0.0.1"})
	obj := json.RawMessage(`{"type":"object"}`)
	d.Srv.SetTools([]mcpserver.Tool{{Def: mcp.Tool{Name: "sleep", InputSchema: obj}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
		var in struct {
			Ms int `json:"ms"`
		}
		_ = json.Unmarshal(c.Arguments, &in)
		time.Sleep(time.Duration(in.Ms) * time.Millisecond)
		return map[string]int{"slept": in.Ms}, nil
	}}})
	mux := http.NewServeMux()
	mh := NewMCPHandler(d.Srv, &MCPOptions{KeepAlive: every}).(*mcpHandler)
	mux.Handle("/mcp", mh)
	hs := &http.Server{Handler: Guard(mux, GuardOptions{Port: d.Port, Token: testToken})}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { d.Srv.Close(); _ = hs.Close() })
	sid := initSession(t, d, "2025-06-18")
	call := func(ms int, accept string) (*http.Response, string) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":%d}}}`, ms+1, ms)
		return do(t, d, rawReq{body: body, headers: map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18", "Accept": accept}})
	}
	sse := "application/json, text/event-stream"
	var wg sync.WaitGroup
	for i, ms := range []int{400, 300, 250} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 25 * time.Millisecond)
			resp, body := call(ms, sse)
			n := strings.Count(body, ": keep-alive\n\n")
			// At least one comment per whole interval slept, allowing for
			// a slow machine to send the last one late.
			if resp.Header.Get("Content-Type") != "text/event-stream" || n < ms/int(every/time.Millisecond)-1 || !strings.Contains(body, fmt.Sprintf(`"slept":%d`, ms)) {
				t.Errorf("a %d ms call with SSE: %s, %d keep-alives: %q", ms, resp.Header.Get("Content-Type"), n, body)
			}
		}()
	}
	wg.Wait()
	if resp, body := call(0, sse); strings.Contains(body, "keep-alive") || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("a quick call: %s %q", resp.Header.Get("Content-Type"), body)
	}
	if resp, body := call(200, "application/json"); strings.Contains(body, "keep-alive") || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("a JSON-only client: %s %q", resp.Header.Get("Content-Type"), body)
	}
	// Nothing running: the shared timer is left unarmed (no wake-ups
	// while idle).
	time.Sleep(3 * every)
	mh.beats.mu.Lock()
	armed, running := mh.beats.armed, len(mh.beats.due)
	mh.beats.mu.Unlock()
	if armed || running != 0 {
		t.Errorf("idle: keep-alive timer armed %v with %d answers running", armed, running)
	}
}
