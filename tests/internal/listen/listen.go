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
	"sync"
	"testing"
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

// OpenMany tries n listen streams at once with each token, waiting at most
// limit for each, and sorts the outcomes: the streams opened (closed when
// the test ends) and the refusals, each as "STATUS STATUS-TEXT: BODY". A
// request that gets no answer fails the test.
func OpenMany(t testing.TB, endpoint string, tokens []string, n int, limit time.Duration) (open []*Stream, refused []string) {
	t.Helper()
	var (
		mu     sync.Mutex
		failed []error
		wg     sync.WaitGroup
	)
	for _, tok := range tokens {
		for range n {
			wg.Go(func() {
				s, status, body, err := Open(endpoint, tok, limit)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					failed = append(failed, err)
				case s != nil:
					open = append(open, s)
				default:
					refused = append(refused, fmt.Sprintf("%d %s: %s", status, http.StatusText(status), body))
				}
			})
		}
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, s := range open {
			s.Close()
		}
	})
	t.Logf("%d streams open, %d refused, %d unanswered", len(open), len(refused), len(failed))
	if len(failed) > 0 {
		t.Fatalf("%d listen requests got no answer (the first: %v): the server stopped answering", len(failed), failed[0])
	}
	return open, refused
}
