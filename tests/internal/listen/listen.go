// Package listen opens MCP subscriptions/listen streams (revision
// 2026-07-28) by hand, one connection each, for the suites that check how
// many a server lets one client hold and what it still serves meanwhile.
package listen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

const body = `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"listen","version":"1"}}}}`

// Stream is an open listen stream; Close ends it.
type Stream struct {
	resp   *http.Response
	hc     *http.Client
	cancel context.CancelFunc
}

// Close ends the stream and its connection.
func (s *Stream) Close() {
	s.cancel()
	s.resp.Body.Close()
	s.hc.CloseIdleConnections()
}

// Open posts a listen request to endpoint on a connection of its own and
// waits, at most limit, for the acknowledgement. A refusal is returned as
// its status and body, with a nil stream; a server that does not answer
// within limit is an error.
func Open(endpoint, token string, limit time.Duration) (*Stream, int, string, error) {
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		cancel()
		return nil, 0, "", err
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen", "Authorization": "Bearer " + token} {
		req.Header.Set(k, v)
	}
	timer := time.AfterFunc(limit, cancel)
	defer timer.Stop()
	resp, err := hc.Do(req)
	if err != nil {
		cancel()
		return nil, 0, "", fmt.Errorf("opening a listen stream: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		cancel()
		return nil, resp.StatusCode, string(b), nil
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "notifications/subscriptions/acknowledged") {
			if !timer.Stop() {
				break
			}
			return &Stream{resp: resp, hc: hc, cancel: cancel}, resp.StatusCode, "", nil
		}
	}
	resp.Body.Close()
	cancel()
	return nil, 0, "", fmt.Errorf("the listen stream ended before its acknowledgement: %v", sc.Err())
}
