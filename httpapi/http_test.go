package httpapi

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

type rawReq struct {
	method  string
	host    string // overrides Host
	headers map[string]string
	body    string
	noAuth  bool
}

func do(t *testing.T, d *daemon, rq rawReq) (*http.Response, string) {
	t.Helper()
	if rq.method == "" {
		rq.method = http.MethodPost
	}
	req, err := http.NewRequest(rq.method, d.URL+"/mcp", strings.NewReader(rq.body))
	if err != nil {
		t.Fatal(err)
	}
	if rq.method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if !rq.noAuth {
		req.Header.Set("Authorization", "Bearer "+testToken)
	}
	for k, v := range rq.headers {
		if v == "-" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	if rq.host != "" {
		req.Host = rq.host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// initSession starts a session at revision rev over raw HTTP.
func initSession(t *testing.T, d *daemon, rev string) string {
	t.Helper()
	resp, body := do(t, d, rawReq{body: sprintf(initBody, rev)})
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	do(t, d, rawReq{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, headers: map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": rev}})
	return sid
}

func TestRawHTTP(t *testing.T) {
	d := startDaemon(t, 0)
	s0618 := initSession(t, d, "2025-06-18")
	s0326 := initSession(t, d, "2025-03-26")
	deleted := initSession(t, d, "2025-06-18")
	if resp, _ := do(t, d, rawReq{method: http.MethodDelete, headers: map[string]string{"Mcp-Session-Id": deleted}}); resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	sess := func(sid string) map[string]string { return map[string]string{"Mcp-Session-Id": sid} }
	port := itoa(d.Port)
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 70<<10) + `"}}`

	tests := []struct {
		name      string
		req       rawReq
		status    int
		header    map[string]string // expected response headers
		bodyHas   []string
		bodyLacks []string
	}{
		{name: "no token", req: rawReq{body: sprintf(initBody, "2025-06-18"), noAuth: true}, status: 401},
		{name: "wrong token", req: rawReq{body: sprintf(initBody, "2025-06-18"), headers: map[string]string{"Authorization": "Bearer nope"}}, status: 401, bodyLacks: []string{testToken}},
		// A cookie is never an MCP credential, even one holding the token
		// (issue 9: the page's cookie was the bearer token).
		{name: "cookie token", req: rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, noAuth: true, headers: map[string]string{"Cookie": "vxd_token=" + testToken}}, status: 401},
		{name: "cookie from the daemon's own page",
			req: rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, noAuth: true,
				headers: map[string]string{"Cookie": "vxd_token=" + testToken, "Origin": "http://127.0.0.1:" + port}},
			status: 401},
		{name: "cookie from another local page",
			req:    rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, noAuth: true, headers: map[string]string{"Cookie": "vxd_token=" + testToken, "Origin": "http://127.0.0.1:5173"}},
			status: 401},
		{name: "foreign host", req: rawReq{host: "evil.example:" + port, body: "{}"}, status: 403},
		{name: "loopback host wrong port", req: rawReq{host: "localhost:1", body: "{}"}, status: 403},
		{name: "localhost host", req: rawReq{host: "localhost:" + port, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, status: 200},
		{name: "foreign origin", req: rawReq{body: "{}", headers: map[string]string{"Origin": "https://evil.example"}}, status: 403},
		{name: "origin null", req: rawReq{body: "{}", headers: map[string]string{"Origin": "null"}}, status: 403},
		{name: "origin looks local", req: rawReq{body: "{}", headers: map[string]string{"Origin": "http://localhost.evil.example"}}, status: 403},
		{name: "preflight allowed",
			req: rawReq{method: http.MethodOptions, noAuth: true,
				headers: map[string]string{"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
					"Access-Control-Request-Headers": "authorization, content-type, mcp-session-id"}},
			status: 204, header: map[string]string{"Access-Control-Allow-Origin": "http://localhost:5173", "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS", "Vary": "Origin"}},
		{name: "preflight refused", req: rawReq{method: http.MethodOptions, noAuth: true, headers: map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}}, status: 403,
			header: map[string]string{"Access-Control-Allow-Origin": ""}},
		{name: "wrong content type", req: rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, headers: map[string]string{"Content-Type": "text/plain"}}, status: 415},
		{name: "body too large", req: rawReq{body: big, headers: sess(s0618)}, status: 413},
		{name: "missing session", req: rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, status: 400, bodyHas: []string{`"id":1`, "Mcp-Session-Id"}},
		{name: "unknown session", req: rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, headers: sess("deadbeef")}, status: 404},
		{name: "deleted session", req: rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, headers: sess(deleted)}, status: 404},
		{name: "delete deleted session", req: rawReq{method: http.MethodDelete, headers: sess(deleted)}, status: 404},
		{name: "unsupported protocol header",
			req:    rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, headers: map[string]string{"Mcp-Session-Id": s0618, "MCP-Protocol-Version": "2019-01-01"}},
			status: 400},
		{name: "absent protocol header", req: rawReq{body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, headers: sess(s0618)}, status: 200, bodyHas: []string{`"name":"echo"`}},
		{name: "PUT", req: rawReq{method: http.MethodPut, body: "{}"}, status: 405, header: map[string]string{"Allow": "GET, POST, DELETE"}},
		{name: "GET without SSE",
			req:    rawReq{method: http.MethodGet, headers: map[string]string{"Accept": "application/json", "Mcp-Session-Id": s0618}},
			status: 405, header: map[string]string{"Allow": "POST, DELETE"}},
		{name: "GET without session", req: rawReq{method: http.MethodGet, headers: map[string]string{"Accept": "text/event-stream"}}, status: 400},
		{name: "notification only", req: rawReq{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, headers: sess(s0618)}, status: 202},
		{name: "parse error", req: rawReq{body: `{"jsonrpc":`, headers: sess(s0618)}, status: 400, bodyHas: []string{`"code":-32700`, `"id":null`}},
		{name: "invalid request", req: rawReq{body: `{"jsonrpc":"2.0","id":"x","method":7}`, headers: sess(s0618)}, status: 200, bodyHas: []string{`"id":"x"`, `"code":-32600`}},
		{name: "method not found", req: rawReq{body: `{"jsonrpc":"2.0","id":2,"method":"nope/nope"}`, headers: sess(s0618)}, status: 200, bodyHas: []string{`"code":-32601`}},
		{name: "invalid params",
			req:    rawReq{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":"x"}}`, headers: sess(s0618)},
			status: 200, bodyHas: []string{`"code":-32602`}},
		{name: "unknown tool", req: rawReq{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"zzz"}}`, headers: sess(s0618)}, status: 200, bodyHas: []string{`"code":-32602`}},
		{name: "tool error masked",
			req:    rawReq{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fail"}}`, headers: sess(s0618)},
			status: 200, bodyHas: []string{`"isError":true`, `login with *** failed`}, bodyLacks: []string{"secret"}},
		{name: "discover without session",
			req:    rawReq{body: `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{}}`, headers: map[string]string{"MCP-Protocol-Version": "2026-07-28"}},
			status: 200, bodyHas: []string{`"code":-32601`}},
		{name: "ping before initialize", req: rawReq{body: `{"jsonrpc":"2.0","id":4,"method":"ping"}`}, status: 200, bodyHas: []string{`"result":{}`}},
		{name: "negotiate unknown revision", req: rawReq{body: sprintf(initBody, "2099-01-01")}, status: 200, bodyHas: []string{`"protocolVersion":"2025-11-25"`}},
		{name: "batch under 2025-03-26",
			req: rawReq{body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
				headers: sess(s0326)},

			status: 200, bodyHas: []string{`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"tools":`}},
		{name: "batch of notifications", req: rawReq{body: `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, headers: sess(s0326)}, status: 202},
		{name: "batch under 2025-06-18", req: rawReq{body: `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, headers: sess(s0618)}, status: 200,
			bodyHas: []string{`"code":-32600`}, bodyLacks: []string{`"result"`}},
		{name: "empty batch", req: rawReq{body: `[]`, headers: sess(s0326)}, status: 400, bodyHas: []string{`"code":-32600`}},
		{name: "initialize in batch", req: rawReq{body: `[` + sprintf(initBody, "2025-03-26") + `]`, headers: sess(s0326)}, status: 200,
			bodyHas: []string{`[{"jsonrpc":"2.0","id":1,"error":{"code":-32600`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := do(t, d, tc.req)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, body)
			}
			for k, v := range tc.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			for _, s := range tc.bodyHas {
				if !strings.Contains(body, s) {
					t.Errorf("body %s\nlacks %s", body, s)
				}
			}
			for _, s := range tc.bodyLacks {
				if strings.Contains(body, s) {
					t.Errorf("body %s\nhas %s", body, s)
				}
			}
		})
	}
}

func TestBrowserClient(t *testing.T) {
	d := startDaemon(t, 0)
	origin := map[string]string{"Origin": "http://localhost:5173"}
	pre, _ := do(t, d,
		rawReq{method: http.MethodOptions, noAuth: true,
			headers: map[string]string{"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"}})
	if pre.StatusCode != 204 || !strings.Contains(pre.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") {
		t.Fatalf("preflight: %d %v", pre.StatusCode, pre.Header)
	}
	resp, body := do(t, d, rawReq{body: sprintf(initBody, "2025-06-18"), headers: origin})
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" ||
		!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Fatalf("initialize from the page: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	for _, c := range sid {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a non-visible character", sid)
		}
	}
	h := map[string]string{"Origin": "http://localhost:5173", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}
	if resp, _ := do(t, d, rawReq{body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, headers: h}); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
	resp, body = do(t, d, rawReq{body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"q":"hi"}}}`, headers: h})
	if resp.StatusCode != 200 || !strings.Contains(body, `"structuredContent":{"args":{"q":"hi"}}`) || resp.Header.Get("Access-Control-Allow-Origin") == "" {
		t.Fatalf("call from the page: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do(t, d, rawReq{method: http.MethodDelete, headers: h}); resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
}

func TestProgressJSONOrSSE(t *testing.T) {
	d := startDaemon(t, 0)
	sid := initSession(t, d, "2025-06-18")
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":1}}}`

	resp, body := do(t, d, rawReq{body: call, headers: map[string]string{"Mcp-Session-Id": sid, "Accept": "application/json"}})
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || strings.Contains(body, "notifications/progress") || !strings.Contains(body, `"steps":3`) {
		t.Fatalf("JSON-only client: %s %s", ct, body)
	}

	resp, body = do(t, d, rawReq{body: call, headers: map[string]string{"Mcp-Session-Id": sid}})
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("SSE client got %s: %s", ct, body)
	}
	var events []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, data)
		}
	}
	if len(events) != 4 || !strings.Contains(events[0], `"progressToken":1,"progress":1`) || !strings.Contains(events[3], `"id":7,"result"`) {
		t.Fatalf("events: %q", events)
	}
}

func TestSessionCapEvictsIdlest(t *testing.T) {
	d := startDaemon(t, 2)
	a := initSession(t, d, "2025-06-18")
	b := initSession(t, d, "2025-06-18")
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	do(t, d, rawReq{body: ping, headers: map[string]string{"Mcp-Session-Id": a}})
	c := initSession(t, d, "2025-06-18")
	for sid, want := range map[string]int{a: 200, b: 404, c: 200} {
		if resp, _ := do(t, d, rawReq{body: ping, headers: map[string]string{"Mcp-Session-Id": sid}}); resp.StatusCode != want {
			t.Errorf("session %s: %d, want %d", sid, resp.StatusCode, want)
		}
	}
}

// TestSDKClient drives the endpoint with the official Go SDK as an
// independent client: initialize, list, call, progress, errors,
// cancellation and list_changed over the GET stream.
func TestSDKClient(t *testing.T) {
	d := startDaemon(t, 0)
	ctx := context.Background()
	client, changed, progress := watchingClient("sdk-test")
	cs, err := client.Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: d.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{testToken}}},
		&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // the session era; the stateless era has its own tests
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated %s", v)
	}
	listProgressFail(ctx, t, cs, progress)

	// Cancellation: the SDK sends notifications/cancelled when ctx ends.
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "slow"})
		errc <- err
	}()
	<-d.started
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("ping while slow runs: %v", err)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("cancelled call returned no error")
	}

	d.Srv.SetTools(testTools(d.started)[:2])
	<-changed
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("ListTools after change: %v %v", tools, err)
	}
}

func TestLoopbackChecks(t *testing.T) {
	origins := map[string]bool{
		"http://localhost:5173": true, "https://127.0.0.1": true, "http://[::1]:8080": true, "http://LOCALHOST": true,
		"null": false, "": false, "file://": false, "http://localhost.evil.example": false, "ftp://localhost": false,
		"http://127.0.0.2": false, "http://user@localhost": false, "http://localhost:99999": false,
	}
	for o, want := range origins {
		if got := loopbackOrigin(o); got != want {
			t.Errorf("loopbackOrigin(%q) = %v", o, got)
		}
	}
	hosts := map[string]bool{"127.0.0.1:80": true, "localhost:80": true, "[::1]:80": true, "127.0.0.1": false, "127.0.0.1:81": false, "example.com:80": false, "::1:80": false}
	for h, want := range hosts {
		if got := LoopbackHost(h, 80); got != want {
			t.Errorf("LoopbackHost(%q) = %v", h, got)
		}
	}
}

// listProgressFail is what both eras' clients check of the test catalog:
// four tools listed, a progress call whose three notifications arrive in
// order (the SDK delivers them on its own goroutine: wait for all three),
// and a failing tool whose message is masked.
func listProgressFail(ctx context.Context, t *testing.T, cs *sdk.ClientSession, progress <-chan float64) {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 4 {
		t.Fatalf("ListTools: %v %v", tools, err)
	}
	params := &sdk.CallToolParams{Name: "progress", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("progress: %v %v", res, err)
	}
	for want := 1.0; want <= 3; want++ {
		if got := <-progress; got != want {
			t.Errorf("progress %v, want %v", got, want)
		}
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "fail"})
	if err != nil || !res.IsError || res.Content[0].(*sdk.TextContent).Text != "login with *** failed" {
		t.Fatalf("fail: %+v %v", res, err)
	}
}

// watchingClient is an SDK client named name that signals on changed when
// the tools list changes and sends each progress value to progress.
func watchingClient(name string) (client *sdk.Client, changed chan struct{}, progress chan float64) {
	changed = make(chan struct{}, 1)
	progress = make(chan float64, 16)
	client = sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			progress <- r.Params.Progress
		},
	})
	return client, changed, progress
}
