package shim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
	"github.com/vzn/vx/protocol/wire"
)

// exchangeError is why one line got no answer from the daemon.
type exchangeError struct {
	err error
	// sent: the request reached the daemon in full, so it may have run.
	sent bool
	// final: recovering would not help (the daemon is stalled, or the
	// answer is too large to pass on).
	final bool
}

// errStalled cancels a request whose daemon sent nothing for too long.
var errStalled = errors.New("vxd stalled")

// replayID is the id of the shim's own tools/list, asked only to decide
// whether a lost call may be sent again.
const replayID = `"vx-mcp-replay-check"`

// notReplayable returns the first request in line that may change the
// workspace ("tools/call runTasks"), or "" when every request in it is
// safe to send again. A tools/call is safe when its tool is annotated
// readOnlyHint or idempotentHint, as the daemon's tools/list says; a tool
// the list does not name, or a list that cannot be read, counts as unsafe.
func (s *shim) notReplayable(ctx context.Context, line []byte) string {
	msgs, _, derr := jsonrpc.Decode(line)
	if derr != nil {
		return ""
	}
	var hints map[string]*mcp.ToolAnnotations
	for _, m := range msgs {
		if m.Kind() != jsonrpc.KindRequest || m.Method != mcp.MethodToolsCall {
			continue
		}
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(m.Params, &p)
		what := mcp.MethodToolsCall + " " + p.Name
		if hints == nil {
			var err error
			if hints, err = s.toolHints(ctx); err != nil {
				s.log.Warn().Err(err).Msg("reading the tool list to decide on a replay")
				return what
			}
		}
		a, ok := hints[p.Name]
		if !ok || a == nil || !(isTrue(a.ReadOnlyHint) || isTrue(a.IdempotentHint)) {
			return what
		}
	}
	return ""
}

func isTrue(b *bool) bool { return b != nil && *b }

// toolHints asks the daemon's current session for its tools' annotations.
func (s *shim) toolHints(ctx context.Context) (map[string]*mcp.ToolAnnotations, error) {
	s.mu.Lock()
	c := conn{s.gen, s.base, s.token, s.sid, s.rev}
	s.mu.Unlock()
	if c.sid == "" {
		return nil, errors.New("no session to ask")
	}
	body := []byte(`{"jsonrpc":"2.0","id":` + replayID + `,"method":"` + mcp.MethodToolsList + `"}`)
	ctx, cancel := context.WithTimeout(ctx, s.stall)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+wire.MCPPath, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set(mcp.HeaderSessionID, c.sid)
	req.Header.Set(mcp.HeaderProtocolVersion, c.rev)
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxLine))
	if err != nil {
		return nil, err
	}
	var m struct {
		Result *mcp.ListToolsResult `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &m) != nil || m.Result == nil {
		return nil, fmt.Errorf("tools/list answered HTTP %d", resp.StatusCode)
	}
	out := map[string]*mcp.ToolAnnotations{}
	for _, t := range m.Result.Tools {
		out[t.Name] = t.Annotations
	}
	return out, nil
}

// failUnknown answers requests the shim will not send again: the daemon
// was lost after it received them, so whether they ran is unknown.
func (s *shim) failUnknown(ids []json.RawMessage, what string, cause error) {
	s.log.Warn().Err(cause).Str("request", what).Msg("not replaying a request that may change the workspace")
	for _, id := range ids {
		s.writeMessage(jsonrpc.NewError(id, jsonrpc.Errorf(jsonrpc.CodeInternalError,
			"vx mcp: vxd was lost while %s was in flight (%v); it was not sent again because it is not read-only, "+
				"so whether it ran is unknown: check getRunHistory (or `vx last` in a shell) before running it again", what, cause)))
	}
}

// freshClient is hc on connections that are never kept alive. A call is
// sent on a connection of its own, so a connection the daemon dropped
// while idle cannot be mistaken for a call lost in flight: when a call's
// request was written on its fresh connection and no answer came, the
// daemon did receive it.
func freshClient(hc *http.Client) *http.Client {
	c := *hc
	switch tr := hc.Transport.(type) {
	case nil:
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DisableKeepAlives = true
		c.Transport = t
	case *http.Transport:
		t := tr.Clone()
		t.DisableKeepAlives = true
		c.Transport = t
	default:
		return hc // a transport of the caller's: it decides
	}
	return &c
}

// noteCancel remembers the request a notifications/cancelled names.
func (s *shim) noteCancel(m *jsonrpc.Message) {
	if m.Kind() != jsonrpc.KindNotification || m.Method != mcp.NotifyCancelled {
		return
	}
	var p mcp.CancelledParams
	if json.Unmarshal(m.Params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancelled == nil || len(s.cancelled) > 1024 {
		s.cancelled = map[string]bool{}
	}
	s.cancelled[string(p.RequestID)] = true
}

// unanswered answers the requests the daemon ended without an answer
// (202) that the client did not cancel itself: their session ended.
func (s *shim) unanswered(ids []json.RawMessage) {
	var owed []json.RawMessage
	s.mu.Lock()
	for _, id := range ids {
		if s.cancelled[string(id)] {
			delete(s.cancelled, string(id))
			continue
		}
		owed = append(owed, id)
	}
	s.mu.Unlock()
	if len(owed) > 0 {
		s.fail(owed, errors.New("vxd ended the request without an answer (its session was closed while it ran); "+
			"send it again if it is still wanted, after checking getRunHistory if it changes the workspace"))
	}
}

// stallTimer cancels a request when the daemon sends nothing (no
// header, no byte of the answer, no keep-alive) for the stall time.
type stallTimer struct {
	t *time.Timer
	d time.Duration
}

func newStallTimer(d time.Duration, cancel context.CancelCauseFunc) *stallTimer {
	return &stallTimer{t: time.AfterFunc(d, func() { cancel(errStalled) }), d: d}
}

func (st *stallTimer) alive() { st.t.Reset(st.d) }
func (st *stallTimer) stop()  { st.t.Stop() }

// stalled is the error a stalled request reports.
func stalled(d time.Duration) error {
	return fmt.Errorf("vxd sent nothing for %s (is it stopped, for instance by SIGSTOP, or overloaded?); vx mcp gave up waiting: %w", d, errStalled)
}

// stallBody re-arms the stall timer on every byte of the answer and
// reports a stall as such.
type stallBody struct {
	io.ReadCloser
	st     *stallTimer
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func (b *stallBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.st.alive()
	}
	if err != nil && errors.Is(context.Cause(b.ctx), errStalled) {
		err = stalled(b.st.d)
	}
	return n, err
}

func (b *stallBody) Close() error {
	b.st.stop()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}
