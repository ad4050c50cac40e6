//go:build !windows

package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// raw speaks streamable HTTP by hand, for what the SDK will not send.
type raw struct {
	endpoint string
	token    string
	origin   string // "" sends no Origin
	sid      string
	hc       *http.Client
}

func newRaw(endpoint, token string) *raw {
	return &raw{endpoint: endpoint, token: token, hc: &http.Client{Timeout: 30 * time.Second}}
}

// rpcReply is one JSON-RPC response.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends body and returns the HTTP response with its body read.
func (c *raw) post(t *testing.T, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", c.endpoint, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// reply decodes the response to a request, from JSON or an SSE stream
// (the last message carrying an id).
func reply(t *testing.T, resp *http.Response, body []byte) rpcReply {
	t.Helper()
	var r rpcReply
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				var m rpcReply
				if json.Unmarshal([]byte(strings.TrimSpace(data)), &m) == nil && len(m.ID) > 0 {
					r = m
				}
			}
		}
		return r
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("answer is not JSON-RPC (%s): %v\n%s", resp.Status, err, body)
	}
	return r
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// initialize opens a session.
func (c *raw) initialize(t *testing.T) {
	t.Helper()
	resp, body := c.post(t, initBody)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s\n%s", resp.Status, body)
	}
	if r := reply(t, resp, body); r.Error != nil || len(r.Result) == 0 {
		t.Fatalf("initialize answered %s", body)
	}
	c.sid = resp.Header.Get("Mcp-Session-Id")
	if c.sid == "" {
		t.Fatalf("initialize gave no Mcp-Session-Id")
	}
	if resp, body := c.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %s, want 202\n%s", resp.Status, body)
	}
}

// callRaw sends tools/call with params given as raw JSON.
func (c *raw) callRaw(t *testing.T, params string) rpcReply {
	t.Helper()
	resp, body := c.post(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":`+params+`}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("tools/call: %s\n%s", resp.Status, body)
	}
	return reply(t, resp, body)
}
