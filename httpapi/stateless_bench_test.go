package httpapi

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

// BenchmarkToolsCall compares one tools/call over real HTTP in each era:
// in a session (Mcp-Session-Id, negotiated once) and stateless (the
// revision, capabilities and headers checked on every request).
func BenchmarkToolsCall(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := mcpserver.New(&mcpserver.Options{Name: "bench", Version: "1"})
	srv.SetTools(testTools(make(chan struct{}, 1)))
	hs := &http.Server{Handler: NewMCPHandler(srv, nil)}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	url := "http://" + ln.Addr().String() + "/mcp"
	post := func(body string, headers map[string]string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return resp
	}
	call := map[string]any{"name": "echo", "arguments": map[string]any{"x": 1}}
	b.Run("session-2025-11-25", func(b *testing.B) {
		sid := post(sprintf(initBody, "2025-11-25"), nil).Header.Get(mcp.HeaderSessionID)
		h := map[string]string{mcp.HeaderSessionID: sid, mcp.HeaderProtocolVersion: "2025-11-25"}
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`
		for b.Loop() {
			post(body, h)
		}
	})
	b.Run("stateless-2026-07-28", func(b *testing.B) {
		body := statelessBody(2, "tools/call", call, nil)
		h := statelessHeaders("tools/call", "echo")
		for b.Loop() {
			post(body, h)
		}
	})
}
