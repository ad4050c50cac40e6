//go:build !windows

package platform_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// The platform's /mcp serves the stateless era beside the session era,
// with vxd's own code: these tests drive a real `vx-platform serve` over
// the private PostgreSQL, with the official SDK left to its defaults (it
// probes server/discover and, answered, never initializes) and with raw
// requests for the transport's refusals.

func statelessPlatform(t *testing.T) (*tenants, *serveProc) {
	t.Helper()
	ts := seed(t)
	_, bin := binaries(t)
	return ts, startServe(t, bin, ts.p.url)
}

func connectPlatform(t *testing.T, base, token string, opts *sdk.ClientSessionOptions) (*sdk.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "platform-stateless", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: harness.BearerClient(token), MaxRetries: -1}, opts)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func TestStatelessEraSDK(t *testing.T) {
	ts, srv := statelessPlatform(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := connectPlatform(t, srv.base, ts.acme, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the SDK speaks %s to the platform, want 2026-07-28", v)
	}
	if si := cs.InitializeResult().ServerInfo; si == nil || si.Name != "vx-platform" {
		t.Errorf("server info %+v, want vx-platform", si)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 7 {
		t.Fatalf("ListTools: %v %v", tools, err)
	}
	compareAndBadLimit(ctx, t, cs)

	// Tenancy holds in the stateless era: beta's token sees beta's web only,
	// and acme's runs are unknown to it.
	beta, err := connectPlatform(t, srv.base, ts.beta, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := beta.CallTool(ctx, &sdk.CallToolParams{Name: "list_runs", Arguments: map[string]any{"workspace": "web"}})
	if err != nil || res.IsError {
		t.Fatalf("beta list_runs: %v %v", res, err)
	}
	if b, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(b), ts.betaRun) || strings.Contains(string(b), "a1a1a1a1a1a1") {
		t.Errorf("beta's list_runs of web: %s", b)
	}
	res, err = beta.CallTool(ctx, &sdk.CallToolParams{Name: "get_run", Arguments: map[string]any{"runId": "a2a2a2a2a2a2"}})
	if err != nil || res.IsError {
		t.Fatalf("beta get_run: %v %v", res, err)
	}
	if m, _ := res.StructuredContent.(map[string]any); m["found"] != false {
		t.Errorf("beta's get_run of acme's run: %#v", res.StructuredContent)
	}

	// The session era still serves an SDK that asks for it.
	old, err := connectPlatform(t, srv.base, ts.acme, &sdk.ClientSessionOptions{ProtocolVersion: "2025-03-26"})
	if err != nil {
		t.Fatal(err)
	}
	if v := old.InitializeResult().ProtocolVersion; v != "2025-03-26" {
		t.Errorf("the SDK asking for 2025-03-26 got %s", v)
	}
	if tools, err := old.ListTools(ctx, nil); err != nil || len(tools.Tools) != 7 {
		t.Errorf("session-era ListTools: %v %v", tools, err)
	}

	// A bad token is refused before any era's handling.
	if _, err := connectPlatform(t, srv.base, "vxc_notatoken", nil); err == nil {
		t.Error("a bad token connected")
	}
	log, _ := os.ReadFile(srv.log)
	for _, tok := range []string{ts.acme, ts.beta} {
		if strings.Contains(string(log), tok) {
			t.Error("the serve log carries a token")
		}
	}
}

// statelessReq is a raw 2026-07-28 request: its body and headers.
func statelessReq(method, version string, params map[string]any) []byte {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    version,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	return b
}

type rpcAnswer struct {
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func answer(t *testing.T, r response) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	if err := json.Unmarshal(r.body, &a); err != nil {
		t.Fatalf("answer (%d) is not JSON-RPC: %v: %s", r.status, err, r.body)
	}
	return a
}

func TestStatelessEraRaw(t *testing.T) {
	ts, srv := statelessPlatform(t)
	url := srv.base + "/mcp"
	const v = "2026-07-28"
	call := statelessReq("tools/call", v, map[string]any{"name": "list_runs", "arguments": map[string]any{}})
	hdr := func(method, name string) []string {
		h := []string{"MCP-Protocol-Version", v, "Mcp-Method", method, "Accept", "application/json, text/event-stream"}
		if name != "" {
			h = append(h, "Mcp-Name", name)
		}
		return h
	}

	t.Run("discover", func(t *testing.T) {
		r := do(t, "POST", url, ts.acme, statelessReq("server/discover", v, nil), hdr("server/discover", "")...)
		a := answer(t, r)
		if r.status != http.StatusOK || a.Result == nil {
			t.Fatalf("server/discover: %d %s", r.status, r.body)
		}
		vs, _ := json.Marshal(a.Result["supportedVersions"])
		if !strings.Contains(string(vs), `"2026-07-28"`) || !strings.Contains(string(vs), `"2025-03-26"`) {
			t.Errorf("supportedVersions %s", vs)
		}
		if a.Result["capabilities"] == nil || a.Result["instructions"] == "" || a.Result["ttlMs"] == nil || a.Result["cacheScope"] == nil {
			t.Errorf("discover lacks capabilities, instructions or caching hints: %s", r.body)
		}
		meta, _ := a.Result["_meta"].(map[string]any)
		si, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any)
		if si["name"] != "vx-platform" {
			t.Errorf("serverInfo in _meta: %s", r.body)
		}
		if r.header.Get("Mcp-Session-Id") != "" {
			t.Error("the stateless era opened a session")
		}
	})

	t.Run("tools/call", func(t *testing.T) {
		r := do(t, "POST", url, ts.acme, call, hdr("tools/call", "list_runs")...)
		a := answer(t, r)
		if r.status != http.StatusOK || a.Result == nil || a.Result["resultType"] != "complete" {
			t.Fatalf("tools/call: %d %s", r.status, r.body)
		}
		meta, _ := a.Result["_meta"].(map[string]any)
		if si, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any); si["name"] != "vx-platform" {
			t.Errorf("serverInfo in _meta: %s", r.body)
		}
		if !strings.Contains(string(r.body), "a2a2a2a2a2a2") || strings.Contains(string(r.body), ts.betaRun) {
			t.Errorf("acme's list_runs: %s", r.body)
		}
	})

	refusals := []struct {
		name   string
		body   []byte
		header []string
		status int
		code   int
		says   string
	}{
		{"no MCP-Protocol-Version", call, []string{"Mcp-Method", "tools/call", "Mcp-Name", "list_runs"}, 400, -32020, "MCP-Protocol-Version header is required"},
		{"MCP-Protocol-Version differs from _meta", call, []string{"MCP-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/call", "Mcp-Name", "list_runs"}, 400, -32020, "does not match"},
		{"no Mcp-Method", call, []string{"MCP-Protocol-Version", v, "Mcp-Name", "list_runs"}, 400, -32020, "Mcp-Method header is required"},
		{"Mcp-Method differs", call, hdr("tools/list", "list_runs"), 400, -32020, "does not match the method"},
		{"no Mcp-Name on tools/call", call, hdr("tools/call", ""), 400, -32020, "Mcp-Name header is required"},
		{"Mcp-Name differs", call, hdr("tools/call", "get_run"), 400, -32020, "does not match params.name"},
		{"unknown method", statelessReq("tools/frobnicate", v, nil), hdr("tools/frobnicate", ""), 404, -32601, "method not found"},
		{"initialize-era method", statelessReq("ping", v, nil), hdr("ping", ""), 404, -32601, "method not found"},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, "POST", url, ts.acme, c.body, c.header...)
			a := answer(t, r)
			if r.status != c.status || a.Error == nil || a.Error.Code != c.code || !strings.Contains(a.Error.Message, c.says) {
				t.Fatalf("want %d %d %q, got %d %s", c.status, c.code, c.says, r.status, r.body)
			}
		})
	}

	t.Run("unsupported version", func(t *testing.T) {
		r := do(t, "POST", url, ts.acme, statelessReq("tools/list", "2099-01-01", nil), "MCP-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list")
		a := answer(t, r)
		if r.status != http.StatusBadRequest || a.Error == nil || a.Error.Code != -32022 {
			t.Fatalf("want 400 -32022, got %d %s", r.status, r.body)
		}
		sup, _ := json.Marshal(a.Error.Data["supported"])
		if a.Error.Data["requested"] != "2099-01-01" || !strings.Contains(string(sup), `"2026-07-28"`) {
			t.Errorf("-32022 data %s", r.body)
		}
	})

	t.Run("auth first", func(t *testing.T) {
		r := do(t, "POST", url, "", call, hdr("tools/call", "list_runs")...)
		if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("no token: %d %v %s", r.status, r.header, r.body)
		}
		r = do(t, "POST", url, ts.acmeIngest, call, hdr("tools/call", "list_runs")...)
		if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "scope read") {
			t.Errorf("ingest token: %d %s", r.status, r.body)
		}
	})

	t.Run("notification", func(t *testing.T) {
		n, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 7}})
		r := do(t, "POST", url, ts.acme, n, "MCP-Protocol-Version", v, "Mcp-Method", "notifications/cancelled")
		if r.status != http.StatusAccepted || len(r.body) != 0 {
			t.Errorf("a 2026-07-28 notification: %d %s", r.status, r.body)
		}
	})

	t.Run("session era unchanged", func(t *testing.T) {
		// An unsupported session-era header is still refused as before.
		r := do(t, "POST", url, ts.acme, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), "MCP-Protocol-Version", "1999-01-01")
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "unsupported MCP-Protocol-Version") {
			t.Errorf("session era, bad header: %d %s", r.status, r.body)
		}
	})
}

// A listen stream of the stateless era is served as an event stream through
// the platform's request logging (each event flushed at once), and asking
// serve to stop ends it promptly: serve exits 0.
func TestStatelessListen(t *testing.T) {
	ts, srv := statelessPlatform(t)
	body := statelessReq("subscriptions/listen", "2026-07-28", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
	req, _ := http.NewRequest("POST", srv.base+"/mcp", strings.NewReader(string(body)))
	for k, v := range map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + ts.acme,
		"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("listen: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	buf := make([]byte, 4096)
	n, err := resp.Body.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), "notifications/subscriptions/acknowledged") {
		t.Fatalf("first event of the listen stream: %v %q", err, buf[:n])
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(done)
	}()
	srv.stop()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the listen stream outlived the server")
	}
	if code := srv.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("serve exited %d after SIGTERM with a listen stream open", code)
	}
}
