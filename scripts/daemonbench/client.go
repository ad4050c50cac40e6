package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/vzn/vx/protocol/mcp"
)

// mcpClient is a minimal streamable HTTP MCP client, the same for every
// server measured: one session initialized once, then sequential POSTs
// over one keep-alive connection. It accepts both JSON and SSE answers.
type mcpClient struct {
	url     string
	token   string
	hc      *http.Client
	session string
	version string
	nextID  int
}

func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, DisableCompression: true, IdleConnTimeout: time.Hour}}
}

func newMCPClient(url, token string) *mcpClient {
	return &mcpClient{url: url, token: token, hc: newHTTPClient()}
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

func (c *mcpClient) request(method string, params any) (*http.Request, int, error) {
	c.nextID++
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	if err != nil {
		return nil, 0, err
	}
	return c.post(body), c.nextID, nil
}

func (c *mcpClient) post(body []byte) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		h.Set(mcp.HeaderSessionID, c.session)
	}
	if c.version != "" {
		h.Set(mcp.HeaderProtocolVersion, c.version)
	}
	return req
}

// do sends one request and reads the whole answer; took is the time from
// sending to the last byte read.
func (c *mcpClient) do(req *http.Request) (resp *http.Response, body []byte, took time.Duration, err error) {
	t0 := time.Now()
	resp, err = c.hc.Do(req)
	if err != nil {
		return nil, nil, 0, err
	}
	body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	took = time.Since(t0)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	return resp, body, took, err
}

// decode finds the answer to id in a JSON or SSE body.
func decode(resp *http.Response, body []byte, id int) (*rpcResponse, error) {
	want := fmt.Sprint(id)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok {
				continue
			}
			var r rpcResponse
			if json.Unmarshal([]byte(strings.TrimSpace(line)), &r) == nil && string(r.ID) == want {
				return &r, nil
			}
		}
		return nil, fmt.Errorf("no answer to request %d in the event stream (%d bytes)", id, len(body))
	}
	var r rpcResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("decoding answer: %w (%.200s)", err, body)
	}
	if string(r.ID) != want {
		return nil, fmt.Errorf("answer has id %s, want %d", r.ID, id)
	}
	return &r, nil
}

// call sends a request and returns its result and the time taken.
func (c *mcpClient) call(method string, params any) (json.RawMessage, time.Duration, int, error) {
	req, id, err := c.request(method, params)
	if err != nil {
		return nil, 0, 0, err
	}
	resp, body, took, err := c.do(req)
	if err != nil {
		return nil, took, 0, fmt.Errorf("%s: %w", method, err)
	}
	r, err := decode(resp, body, id)
	if err != nil {
		return nil, took, len(body), fmt.Errorf("%s: %w", method, err)
	}
	if r.Error != nil {
		return nil, took, len(body), fmt.Errorf("%s: error %d: %s", method, r.Error.Code, r.Error.Message)
	}
	return r.Result, took, len(body), nil
}

func (c *mcpClient) initialize() error { return c.initializeAt("2025-06-18") }

// initializeAt starts a session asking for revision rev.
func (c *mcpClient) initializeAt(rev string) error {
	req, id, err := c.request("initialize", map[string]any{
		"protocolVersion": rev,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "daemonbench", "version": "1"},
	})
	if err != nil {
		return err
	}
	resp, body, _, err := c.do(req)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	r, err := decode(resp, body, id)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if r.Error != nil {
		return fmt.Errorf("initialize: %s", r.Error.Message)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(r.Result, &res)
	c.session = resp.Header.Get(mcp.HeaderSessionID)
	c.version = res.ProtocolVersion
	_, _, _, err = c.do(c.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)))
	if err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return nil
}

type toolResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// tool calls a tool; a result with isError is an error.
func (c *mcpClient) tool(name string, args any) (*toolResult, time.Duration, int, error) {
	raw, took, size, err := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, took, size, err
	}
	var tr toolResult
	if err := json.Unmarshal(raw, &tr); err != nil {
		return nil, took, size, fmt.Errorf("tools/call %s: %w", name, err)
	}
	if tr.IsError {
		text := ""
		if len(tr.Content) > 0 {
			text = tr.Content[0].Text
		}
		return &tr, took, size, &toolError{name, text}
	}
	return &tr, took, size, nil
}

type toolError struct{ tool, text string }

func (e *toolError) Error() string { return fmt.Sprintf("tools/call %s: isError: %s", e.tool, e.text) }

// samples are latencies of one measurement.
type samples struct {
	d     []time.Duration
	bytes int
}

func (s *samples) add(d time.Duration) { s.d = append(s.d, d) }

// pct is the nearest-rank percentile.
func (s *samples) pct(p float64) time.Duration {
	if len(s.d) == 0 {
		return 0
	}
	d := slices.Clone(s.d)
	slices.Sort(d)
	i := int(float64(len(d))*p/100+0.999999) - 1
	return d[max(0, min(len(d)-1, i))]
}

func ms(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.3f ms", float64(d)/1e6)
	}
}
