package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// StatelessCall is what a stateless tools/call carries for the multi
// round-trip pattern: whether the client can be asked (it declared
// elicitation) and, on a retry, its answers and the state vxd gave it.
type StatelessCall struct {
	CanElicit      bool
	InputResponses map[string]json.RawMessage
	RequestState   string
}

// InputRequired is a handler's answer asking the stateless client for
// input before the call can complete: the client retries the call with
// inputResponses (keyed as Requests) and State echoed as requestState.
// Only a call with Stateless set may return one.
type InputRequired struct {
	Requests map[string]mcp.InputRequest
	State    string
}

var elicitSeq atomic.Uint64

type noStreamKey struct{}

// WithoutStream marks ctx as a request whose answer cannot carry messages
// before the response (an HTTP client that accepts only JSON): vxd then
// offers no elicitation on it, since the request could never reach the
// client.
func WithoutStream(ctx context.Context) context.Context {
	return context.WithValue(ctx, noStreamKey{}, true)
}

// extendCall gives a handler what its client can do beyond answering:
// in the session era, Elicit when the client declared elicitation
// (2025-06-18 and later); in the stateless era, the retry state.
func (ss *Session) extendCall(ctx context.Context, call *Call, params json.RawMessage, emit func(*jsonrpc.Message)) error {
	if ss.stateless != nil {
		call.Stateless = &StatelessCall{CanElicit: ss.stateless.ClientCapabilities.Elicitation != nil}
		if !bytes.Contains(params, []byte(`"inputResponses"`)) && !bytes.Contains(params, []byte(`"requestState"`)) {
			return nil // not a retry
		}
		var p struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			RequestState   *string                    `json:"requestState"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return invalidParams("inputResponses must be an object of answers and requestState a string: %v", err)
		}
		call.Stateless.InputResponses = p.InputResponses
		if p.RequestState != nil {
			call.Stateless.RequestState = *p.RequestState
		}
		return nil
	}
	ss.mu.Lock()
	can := ss.canElicit
	ss.mu.Unlock()
	if noStream, _ := ctx.Value(noStreamKey{}).(bool); can && !noStream {
		call.Elicit = func(ctx context.Context, p mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return ss.elicit(ctx, emit, p)
		}
	}
	return nil
}

// noteCapabilities records what an initialize said the client can do.
func (ss *Session) noteCapabilities(rev string, caps json.RawMessage) {
	var c mcp.ClientCapabilities
	_ = json.Unmarshal(caps, &c)
	ss.mu.Lock()
	ss.canElicit = c.Elicitation != nil && rev >= mcp.Rev20250618
	ss.mu.Unlock()
}

// elicit sends elicitation/create on the request's stream and waits for
// the client's response (or ctx).
func (ss *Session) elicit(ctx context.Context, emit func(*jsonrpc.Message), p mcp.ElicitParams) (*mcp.ElicitResult, error) {
	id := json.RawMessage(strconv.Quote(fmt.Sprintf("vxd-elicit-%d", elicitSeq.Add(1))))
	req, err := jsonrpc.NewRequest(id, mcp.MethodElicit, p)
	if err != nil {
		return nil, err
	}
	ch := make(chan *jsonrpc.Message, 1)
	ss.mu.Lock()
	if ss.pending == nil {
		ss.pending = map[string]chan *jsonrpc.Message{}
	}
	ss.pending[string(id)] = ch
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		delete(ss.pending, string(id))
		ss.mu.Unlock()
	}()
	emit(req)
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the user's answer: %w", context.Cause(ctx))
	case <-ss.done:
		return nil, fmt.Errorf("the session ended before the user answered")
	case r := <-ch:
		if r.Error != nil {
			return nil, fmt.Errorf("the client could not ask the user: %s", r.Error.Message)
		}
		var res mcp.ElicitResult
		if err := json.Unmarshal(r.Result, &res); err != nil {
			return nil, fmt.Errorf("reading the client's elicitation answer: %v", err)
		}
		return &res, nil
	}
}

// deliverResponse hands a client's response to the request vxd sent.
func (ss *Session) deliverResponse(m *jsonrpc.Message) {
	ss.mu.Lock()
	ch := ss.pending[string(m.ID)]
	ss.mu.Unlock()
	if ch != nil {
		select {
		case ch <- m:
		default:
		}
	}
}

// inputRequiredResult encodes ir as a stateless interim result.
func (s *Server) inputRequiredResult(ir *InputRequired) (json.RawMessage, error) {
	return jsonrpc.Encode(map[string]any{
		"resultType":    mcp.ResultInputRequired,
		"inputRequests": ir.Requests,
		"requestState":  ir.State,
		"_meta":         map[string]any{mcp.MetaServerInfo: mcp.Implementation{Name: s.name, Version: s.version}},
	})
}
