package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

// TestStatelessSDKClient drives the endpoint with the official Go SDK speaking
// 2026-07-28: server/discover instead of initialize, no session, progress,
// masked errors, cancellation by closing the request's stream, and
// list_changed over subscriptions/listen.
func TestStatelessSDKClient(t *testing.T) {
	d := startDaemon(t, 0)
	ctx := context.Background()
	client, changed, progress := watchingClient("sdk-stateless")
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: d.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{testToken}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != mcp.Rev20260728 {
		t.Fatalf("negotiated %s, want %s", v, mcp.Rev20260728)
	}
	if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "vxd-test" || info.Version != "0.0.1" {
		t.Errorf("server info from discover: %+v", info)
	}
	if cs.ID() != "" || d.Srv.Stats().Sessions != 0 {
		t.Errorf("a stateless client got a session: id %q, server sessions %d", cs.ID(), d.Srv.Stats().Sessions)
	}
	listProgressFail(ctx, t, cs, progress)

	// Cancellation: the SDK closes the request's stream when ctx ends,
	// and the server cancels the tool (its in-flight count drops back).
	before := d.Srv.Stats().InFlight
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "slow"})
		errc <- err
	}()
	<-d.started
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("cancelled call returned no error")
	}
	waitFor(t, "the cancelled tool to end", func() bool { return d.Srv.Stats().InFlight == before })

	// The SDK opened subscriptions/listen for tools because the discover
	// result declared listChanged; wait until its stream is registered.
	waitFor(t, "the listen stream", func() bool { return d.Srv.Stats().InFlight >= 1 })
	d.Srv.SetTools(testTools(d.started)[:2])
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed on the listen stream")
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("ListTools after change: %v %v", tools, err)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// statelessBody is a stateless request with the required _meta.
func statelessBody(id int, method string, params map[string]any, meta map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	m := map[string]any{mcp.MetaProtocolVersion: mcp.Rev20260728, mcp.MetaClientCapabilities: map[string]any{}, mcp.MetaClientInfo: map[string]string{"name": "raw", "version": "1"}}
	for k, v := range meta {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	params["_meta"] = m
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return string(b)
}

func statelessHeaders(method, name string) map[string]string {
	h := map[string]string{mcp.HeaderProtocolVersion: mcp.Rev20260728, mcp.HeaderMethod: method}
	if name != "" {
		h[mcp.HeaderName] = name
	}
	return h
}

type rpcAnswer struct {
	Result map[string]json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// TestStatelessRefusals checks every refusal of the revision's HTTP rules
// and of its per-request fields, with its status and code.
func TestStatelessRefusals(t *testing.T) {
	d := startDaemon(t, 0)
	call := map[string]any{"name": "echo", "arguments": map[string]any{}}
	cases := []struct {
		name    string
		body    string
		headers map[string]string
		status  int
		code    int
		msg     string
	}{
		{"no protocol header", statelessBody(1, "tools/list", nil, nil), map[string]string{mcp.HeaderMethod: "tools/list"}, 400, mcp.CodeHeaderMismatch, "MCP-Protocol-Version header is required"},
		{"protocol header differs from _meta", statelessBody(1, "tools/list", nil, nil),
			map[string]string{mcp.HeaderProtocolVersion: "2025-11-25", mcp.HeaderMethod: "tools/list"}, 400, mcp.CodeHeaderMismatch,
			`"2025-11-25" does not match`},
		{"no method header", statelessBody(1, "tools/list", nil, nil), map[string]string{mcp.HeaderProtocolVersion: mcp.Rev20260728}, 400, mcp.CodeHeaderMismatch, "Mcp-Method header is required"},
		{"method header differs", statelessBody(1, "tools/list", nil, nil), statelessHeaders("prompts/list", ""), 400, mcp.CodeHeaderMismatch,
			`Mcp-Method header "prompts/list" does not match the method "tools/list"`},
		{"no name header on tools/call", statelessBody(1, "tools/call", call, nil), statelessHeaders("tools/call", ""), 400, mcp.CodeHeaderMismatch, "Mcp-Name header is required on tools/call"},
		{"name header differs", statelessBody(1, "tools/call", call, nil), statelessHeaders("tools/call", "fail"), 400, mcp.CodeHeaderMismatch, `Mcp-Name header "fail" does not match params.name "echo"`},
		{"name header of resources/read", statelessBody(1, "resources/read", map[string]any{"uri": "vx://x"}, nil),
			statelessHeaders("resources/read", "vx://y"), 400, mcp.CodeHeaderMismatch, `does not match params.uri "vx://x"`},
		{"bad base64 name", statelessBody(1, "tools/call", call, nil), statelessHeaders("tools/call", "=?base64?!!!?="), 400, mcp.CodeHeaderMismatch, "not valid base64"},
		{"unsupported revision", statelessBody(1, "tools/list", nil, map[string]any{mcp.MetaProtocolVersion: "2099-01-01"}),
			map[string]string{mcp.HeaderProtocolVersion: "2099-01-01", mcp.HeaderMethod: "tools/list"}, 400,
			mcp.CodeUnsupportedProtocolVersion, `unsupported protocol version "2099-01-01"`},
		{"session revision without a session", statelessBody(1, "tools/list", nil, map[string]any{mcp.MetaProtocolVersion: "2025-11-25"}),
			map[string]string{mcp.HeaderProtocolVersion: "2025-11-25", mcp.HeaderMethod: "tools/list"}, 400,
			mcp.CodeUnsupportedProtocolVersion, "served in a session opened by initialize"},
		{"no client capabilities", statelessBody(1, "tools/list", nil, map[string]any{mcp.MetaClientCapabilities: nil}), statelessHeaders("tools/list", ""), 400, -32602, "clientCapabilities"},
		{"bad log level", statelessBody(1, "tools/list", nil, map[string]any{mcp.MetaLogLevel: "loud"}), statelessHeaders("tools/list", ""), 400, -32602, "logLevel"},
		{"unknown method", statelessBody(1, "tools/frobnicate", nil, nil), statelessHeaders("tools/frobnicate", ""), 404, -32601, "tools/frobnicate"},
		{"ping is not of the era", statelessBody(1, "ping", nil, nil), statelessHeaders("ping", ""), 404, -32601, "ping"},
		{"logging/setLevel is not of the era", statelessBody(1, "logging/setLevel", map[string]any{"level": "debug"}, nil), statelessHeaders("logging/setLevel", ""), 404, -32601, "logging/setLevel"},
		{"unknown tool", statelessBody(1, "tools/call", map[string]any{"name": "nope"}, nil), statelessHeaders("tools/call", "nope"), 200, -32602, `unknown tool "nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := do(t, d, rawReq{body: tc.body, headers: tc.headers})
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			var a rpcAnswer
			if err := json.Unmarshal([]byte(body), &a); err != nil || a.Error == nil {
				t.Fatalf("no JSON-RPC error: %s", body)
			}
			if a.Error.Code != tc.code || !strings.Contains(a.Error.Message, tc.msg) {
				t.Errorf("error %d %q, want %d containing %q", a.Error.Code, a.Error.Message, tc.code, tc.msg)
			}
			if resp.Header.Get(mcp.HeaderSessionID) != "" {
				t.Error("a stateless request was given a session id")
			}
		})
	}
	// The -32022 data names what is supported and what was asked.
	_, body := do(t, d,
		rawReq{body: statelessBody(1, "tools/list", nil, map[string]any{mcp.MetaProtocolVersion: "2099-01-01"}),
			headers: map[string]string{mcp.HeaderProtocolVersion: "2099-01-01", mcp.HeaderMethod: "tools/list"}})
	var a rpcAnswer
	_ = json.Unmarshal([]byte(body), &a)
	var data mcp.UnsupportedVersionData
	if a.Error == nil || json.Unmarshal(a.Error.Data, &data) != nil || data.Requested != "2099-01-01" || data.Supported[0] != mcp.Rev20260728 || len(data.Supported) != 5 {
		t.Errorf("-32022 data: %s", body)
	}
}

// TestStatelessResults checks what every result of the era carries, and
// that the session era is untouched beside it.
func TestStatelessResults(t *testing.T) {
	d := startDaemon(t, 0)
	for _, tc := range []struct {
		method    string
		params    map[string]any
		name      string
		cacheable bool
	}{
		{"server/discover", nil, "", true},
		{"tools/list", nil, "", true},
		{"resources/list", nil, "", true},
		{"resources/templates/list", nil, "", true},
		{"prompts/list", nil, "", true},
		{"tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"a": 1}}, "echo", false},
	} {
		t.Run(tc.method, func(t *testing.T) {
			resp, body := do(t, d, rawReq{body: statelessBody(7, tc.method, tc.params, nil), headers: statelessHeaders(tc.method, tc.name)})
			var a rpcAnswer
			if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &a) != nil || a.Result == nil {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			if string(a.Result["resultType"]) != `"complete"` {
				t.Errorf("resultType %s", a.Result["resultType"])
			}
			var meta map[string]mcp.Implementation
			if json.Unmarshal(a.Result["_meta"], &meta) != nil || meta[mcp.MetaServerInfo].Name != "vxd-test" {
				t.Errorf("_meta %s", a.Result["_meta"])
			}
			_, hasTTL := a.Result["ttlMs"]
			_, hasScope := a.Result["cacheScope"]
			if hasTTL != tc.cacheable || hasScope != tc.cacheable {
				t.Errorf("ttlMs %s cacheScope %s (cacheable %v)", a.Result["ttlMs"], a.Result["cacheScope"], tc.cacheable)
			}
		})
	}
	_, body := do(t, d, rawReq{body: statelessBody(1, "server/discover", nil, nil), headers: statelessHeaders("server/discover", "")})
	var a rpcAnswer
	_ = json.Unmarshal([]byte(body), &a)
	var versions []string
	if json.Unmarshal(a.Result["supportedVersions"], &versions) != nil || strings.Join(versions, ",") != strings.Join(mcp.AllSupported(), ",") {
		t.Errorf("supportedVersions %s", a.Result["supportedVersions"])
	}
	// A name outside plain ASCII travels base64-encoded.
	if got := mcp.EncodeHeaderValue("résumé"); !strings.HasPrefix(got, "=?base64?") {
		t.Errorf("EncodeHeaderValue: %s", got)
	}
	resp, body := do(t, d, rawReq{body: statelessBody(2, "tools/call", map[string]any{"name": "echo"}, nil), headers: statelessHeaders("tools/call", "=?base64?ZWNobw==?=")})
	if resp.StatusCode != 200 {
		t.Errorf("base64 Mcp-Name: %d %s", resp.StatusCode, body)
	}
	// The session era beside it: initialize still opens a session.
	if sid := initSession(t, d, "2025-06-18"); sid == "" {
		t.Error("initialize opened no session")
	}
}

// TestStatelessLogLevel: notifications/message only for a request that asked
// for them in _meta, at or above the asked level.
func TestStatelessLogLevel(t *testing.T) {
	d := startDaemon(t, 0)
	d.Srv.SetTools([]mcpserver.Tool{{Def: mcp.Tool{Name: "logs", InputSchema: json.RawMessage(`{"type":"object"}`)}, Handler: func(ctx context.Context, c *mcpserver.Call) (any, error) {
		c.Log(mcp.LevelDebug, "debug line")
		c.Log(mcp.LevelWarning, "warning line")
		return map[string]bool{"ok": true}, nil
	}}})
	call := map[string]any{"name": "logs"}
	_, body := do(t, d, rawReq{body: statelessBody(1, "tools/call", call, nil), headers: statelessHeaders("tools/call", "logs")})
	if strings.Contains(body, "notifications/message") {
		t.Errorf("log messages without a logLevel: %s", body)
	}
	_, body = do(t, d, rawReq{body: statelessBody(2, "tools/call", call, map[string]any{mcp.MetaLogLevel: "warning"}), headers: statelessHeaders("tools/call", "logs")})
	if !strings.Contains(body, "warning line") || strings.Contains(body, "debug line") {
		t.Errorf("logLevel warning: %s", body)
	}
	_, body = do(t, d, rawReq{body: statelessBody(3, "tools/call", call, map[string]any{mcp.MetaLogLevel: "debug"}), headers: statelessHeaders("tools/call", "logs")})
	if !strings.Contains(body, "warning line") || !strings.Contains(body, "debug line") {
		t.Errorf("logLevel debug: %s", body)
	}
}

// TestStatelessListen: subscriptions/listen acknowledges what it honours,
// then carries list_changed tagged with its id, and closing it ends it.
func TestStatelessListen(t *testing.T) {
	d := startDaemon(t, 0)
	body := statelessBody(9, "subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true, "resourceSubscriptions": []string{"vx://nothing"}}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, d.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range statelessHeaders("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("listen answered %d %s", resp.StatusCode, ct)
	}
	next := listenEvents(t, resp.Body)
	ack := next()
	if !strings.Contains(ack, `"method":"notifications/subscriptions/acknowledged"`) || !strings.Contains(ack, `"io.modelcontextprotocol/subscriptionId":9`) ||
		!strings.Contains(ack, `"toolsListChanged":true`) || strings.Contains(ack, "vx://nothing") {
		t.Errorf("acknowledgement: %s", ack)
	}
	d.Srv.SetPrompts([]mcpserver.Prompt{{Def: mcp.Prompt{Name: "p"}}}) // not opted in
	d.Srv.SetTools(testTools(d.started)[:1])
	if e := next(); !strings.Contains(e, `"method":"notifications/tools/list_changed"`) || !strings.Contains(e, `"io.modelcontextprotocol/subscriptionId":9`) {
		t.Errorf("list_changed: %s", e)
	}
	cancel()
	waitFor(t, "the listen stream to end", func() bool { return d.Srv.Stats().InFlight == 0 })
}
