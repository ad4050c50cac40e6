// Package metarules is the table of the MCP 2026-07-28 revision's rules
// for a request's params._meta (basic/index "_meta", versioning, and the
// streamable HTTP transport's header rule), with the HTTP status and
// JSON-RPC code each rule gives, checked against any MCP endpoint: vxd's
// /mcp (tests/mcp) and the platform's (tests/platform).
package metarules

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Case is one tools/list request with no session and what the rule gives.
type Case struct {
	Rule   string
	Meta   string // params._meta as JSON; "" leaves _meta out
	Header string // MCP-Protocol-Version; "" sends none
	Status int
	Code   int
	Says   string // in the error's message
}

// Cases: a request missing a required field (protocolVersion,
// clientCapabilities), or with a field it cannot read, is malformed:
// -32602 and 400. A revision the server does not serve statelessly: -32022
// with {supported, requested}, 400. A header that differs from _meta, or is
// missing: -32020, 400.
var Cases = []Case{
	{"protocolVersion missing (the header names 2026-07-28)", `{"io.modelcontextprotocol/clientCapabilities":{}}`, "2026-07-28", 400, -32602, "io.modelcontextprotocol/protocolVersion"},
	{"_meta missing (the header names 2026-07-28)", "", "2026-07-28", 400, -32602, "io.modelcontextprotocol/protocolVersion"},
	{"_meta not an object", `5`, "2026-07-28", 400, -32602, "_meta"},
	{"protocolVersion not a string", `{"io.modelcontextprotocol/protocolVersion":2026,"io.modelcontextprotocol/clientCapabilities":{}}`, "2026-07-28", 400, -32602, "protocolVersion"},
	{"protocolVersion empty", `{"io.modelcontextprotocol/protocolVersion":"","io.modelcontextprotocol/clientCapabilities":{}}`, "2026-07-28", 400, -32602, "protocolVersion"},
	{"clientCapabilities missing", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, "2026-07-28", 400, -32602, "clientCapabilities"},
	{"clientCapabilities not an object", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":"none"}`, "2026-07-28", 400, -32602, "clientCapabilities"},
	{"clientInfo not an Implementation",
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"me"}`,
		"2026-07-28", 400, -32602, "clientInfo"},
	{"logLevel not a level",
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}`,
		"2026-07-28", 400, -32602, "logLevel"},
	{"revision not served", `{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}`, "2099-01-01", 400, -32022, "2099-01-01"},
	{"session-era revision in _meta", `{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}`, "2025-11-25", 400, -32022, "initialize"},
	{"header differs from _meta", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`, "2025-11-25", 400, -32020, "does not match"},
	{"header missing", `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`, "", 400, -32020, "MCP-Protocol-Version header is required"},
}

// Reply is the status and JSON-RPC answer of one POST.
type Reply struct {
	Status int
	Body   string
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// Post POSTs a tools/list whose params._meta is meta (see Case) to
// endpoint with the bearer token, MCP-Protocol-Version header and
// Mcp-Session-Id sid ("" for none).
func Post(t *testing.T, endpoint, token, meta, header, sid string) Reply {
	t.Helper()
	params := `{}`
	if meta != "" {
		params = `{"_meta":` + meta + `}`
	}
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":`+params+`}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Method", "tools/list")
	if header != "" {
		req.Header.Set("MCP-Protocol-Version", header)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := Reply{Status: resp.StatusCode, Body: string(b)}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(b), "\n") {
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				b = []byte(strings.TrimSpace(data))
			}
		}
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("answer is not JSON-RPC (%d): %s", resp.StatusCode, r.Body)
	}
	return r
}

// Check runs every Case against endpoint, one subtest each.
func Check(t *testing.T, endpoint, token string) {
	for _, c := range Cases {
		t.Run(c.Rule, func(t *testing.T) {
			r := Post(t, endpoint, token, c.Meta, c.Header, "")
			if r.Status != c.Status || r.Error == nil || r.Error.Code != c.Code || !strings.Contains(r.Error.Message, c.Says) {
				t.Errorf("want %d with %d naming %q, got %d %s", c.Status, c.Code, c.Says, r.Status, r.Body)
			}
			if c.Code != -32022 {
				return
			}
			var data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			}
			if r.Error == nil || json.Unmarshal(r.Error.Data, &data) != nil || data.Requested != c.Header || len(data.Supported) == 0 || data.Supported[0] != "2026-07-28" {
				t.Errorf("-32022 data must be {supported, requested}: %s", r.Body)
			}
		})
	}
}
