package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// TestStatelessExported: another endpoint serving the era through Stateless
// (as the platform's /mcp does) gets vxd's answers for stateless POSTs
// and nothing for others; a listen stream outlives the server's
// WriteTimeout and still carries list_changed after it.
func TestStatelessExported(t *testing.T) {
	srv := mcpserver.New(&mcpserver.Options{Name: "other", Version: "1"})
	srv.SetTools(testTools(make(chan struct{}, 1)))
	stateless := NewStateless(srv, &MCPOptions{KeepAlive: time.Hour})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		_, _ = bufio.NewReader(r.Body).WriteTo(&b)
		msgs, batch, derr := jsonrpc.Decode([]byte(b.String()))
		if derr != nil || !stateless.Serve(w, r, msgs, batch) {
			http.Error(w, "not the stateless era", http.StatusTeapot)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const writeTimeout = 300 * time.Millisecond
	hs := &http.Server{Handler: h, WriteTimeout: writeTimeout}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); _ = hs.Close() })
	url := "http://" + ln.Addr().String() + "/mcp"

	post := func(ctx context.Context, body string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := post(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil); resp.StatusCode != http.StatusTeapot {
		t.Errorf("a session-era POST: %d, want Serve to leave it to the caller", resp.StatusCode)
	}
	resp := post(context.Background(), statelessBody(2, "tools/list", nil, nil), map[string]string{mcp.HeaderProtocolVersion: "2026-07-28"})
	var a rpcAnswer
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil || resp.StatusCode != http.StatusBadRequest || a.Error == nil || a.Error.Code != -32020 {
		t.Errorf("no Mcp-Method: %d %v %+v", resp.StatusCode, err, a.Error)
	}
	resp.Body.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp = post(ctx, statelessBody(9, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}, nil), statelessHeaders("subscriptions/listen", ""))
	defer resp.Body.Close()
	next := listenEvents(t, resp.Body)
	if e := next(); !strings.Contains(e, "notifications/subscriptions/acknowledged") {
		t.Fatalf("acknowledgement: %s", e)
	}
	time.Sleep(2 * writeTimeout) // past the server's write deadline
	srv.SetTools(testTools(make(chan struct{}, 1))[:1])
	if e := next(); !strings.Contains(e, `"method":"notifications/tools/list_changed"`) {
		t.Errorf("list_changed after the write timeout: %s", e)
	}
}

// listenEvents reads the data lines of a listen stream's events from body
// as they come; the function it returns gives the next one, failing the
// test when the stream ends or 10s pass without one.
func listenEvents(t *testing.T, body io.Reader) func() string {
	events := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(body)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- line
			}
		}
		close(events)
	}()
	return func() string {
		t.Helper()
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatal("the listen stream ended")
			}
			return e
		case <-time.After(10 * time.Second):
			t.Fatal("no event on the listen stream")
		}
		return ""
	}
}
