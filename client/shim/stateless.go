package shim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
	"github.com/vzn/vx/protocol/wire"
)

// A 2026-07-28 client sends every request on its own, its revision in
// params._meta, and never initializes. The shim posts each such line with
// the headers the revision's HTTP binding asks for (derived from the
// line, so they always match it) and no session. stdio cancels with
// notifications/cancelled, HTTP by closing the request's stream: the shim
// turns one into the other. Listen streams end when input does.

type statelessCalls struct {
	mu       sync.Mutex
	inflight map[string]statelessCall
}

type statelessCall struct {
	cancel context.CancelFunc
	listen bool
}

// statelessLine sends a stateless line on its way and reports whether it
// was one (else the session-era path takes it).
func (s *shim) statelessLine(ctx context.Context, wg *sync.WaitGroup, line []byte, msgs []*jsonrpc.Message, batch bool) bool {
	if batch || len(msgs) != 1 {
		return false
	}
	m := msgs[0]
	switch m.Kind() {
	case jsonrpc.KindNotification:
		if m.Method != mcp.NotifyCancelled {
			return false
		}
		var p mcp.CancelledParams
		if json.Unmarshal(m.Params, &p) != nil {
			return false
		}
		s.stateless.mu.Lock()
		c, ok := s.stateless.inflight[string(p.RequestID)]
		s.stateless.mu.Unlock()
		if ok {
			c.cancel() // closing the stream is the cancellation
		}
		return ok
	case jsonrpc.KindRequest:
		if !mcp.HasStatelessMeta(m.Params) {
			return false
		}
		rctx, cancel := context.WithCancel(ctx)
		key := string(m.ID)
		s.stateless.mu.Lock()
		if s.stateless.inflight == nil {
			s.stateless.inflight = map[string]statelessCall{}
		}
		s.stateless.inflight[key] = statelessCall{cancel: cancel, listen: m.Method == mcp.MethodSubscriptionsListen}
		s.stateless.mu.Unlock()
		wg.Go(func() {
			defer func() {
				s.stateless.mu.Lock()
				delete(s.stateless.inflight, key)
				s.stateless.mu.Unlock()
				cancel()
			}()
			s.forwardStateless(rctx, line, m)
		})
		return true
	}
	return false
}

// endListens closes every subscriptions/listen stream (input has ended, so
// nobody reads what they would carry).
func (s *shim) endListens() {
	s.stateless.mu.Lock()
	defer s.stateless.mu.Unlock()
	for _, c := range s.stateless.inflight {
		if c.listen {
			c.cancel()
		}
	}
}

// forwardStateless posts one stateless request and writes its answers,
// restarting a lost daemon once (there is no session to replay).
func (s *shim) forwardStateless(ctx context.Context, line []byte, m *jsonrpc.Message) {
	ids := []json.RawMessage{m.ID}
	for attempt := 0; ; attempt++ {
		c, err := s.current(ctx)
		if err != nil {
			s.fail(ids, err)
			return
		}
		resp, err := s.postStateless(ctx, c, line, m)
		if err != nil && ctx.Err() == nil && attempt == 0 {
			s.log.Info().Err(err).Msg("the daemon is gone: reconnecting")
			if rerr := s.recover(ctx, c.gen, false); rerr != nil {
				s.fail(ids, rerr)
				return
			}
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				s.fail(ids, fmt.Errorf("reaching vxd: %w", err))
			}
			return // cancelled by the client: nothing is owed
		}
		s.deliver(resp, ids, false, c)
		return
	}
}

func (s *shim) postStateless(ctx context.Context, c conn, body []byte, m *jsonrpc.Message) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+wire.MCPPath, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	meta, _ := mcp.ParseStatelessMeta(m.Params)
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Authorization", "Bearer "+c.token)
	h.Set(mcp.HeaderProtocolVersion, meta.ProtocolVersion)
	h.Set(mcp.HeaderMethod, m.Method)
	if name, ok := mcp.NameCarrier(m.Method, m.Params); ok {
		h.Set(mcp.HeaderName, mcp.EncodeHeaderValue(name))
	}
	return s.hc.Do(req)
}
