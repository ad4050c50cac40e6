package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// Session is one client's conversation: its negotiated revision, logging
// level and requests in flight. It is safe for concurrent use, so a long
// tools/call never holds up a ping.
type Session struct {
	id     string
	srv    *Server
	notify func(*jsonrpc.Message)
	done   chan struct{}

	mu       sync.Mutex
	revision string
	// assumed is the revision of a stateless session that has seen no
	// initialize (see Server.Stateless).
	assumed  string
	level    mcp.LoggingLevel
	inflight map[string]context.CancelFunc
	last     time.Time
	closed   bool
	holds    int         // open streams (Hold)
	expiry   *time.Timer // ends the idle session (expiry.go)

	// stateless is the _meta of a stateless (2026-07-28) request served by a
	// transient session; silent means it asked for no log messages.
	stateless *mcp.StatelessMeta
	silent    bool
	// canElicit and pending serve elicitation/create (elicit.go).
	canElicit bool
	pending   map[string]chan *jsonrpc.Message
	subs      map[string]bool // resources/subscribe (subscribe.go)
}

// ID is the session's random id (32 hex digits, 128 bits).
func (ss *Session) ID() string { return ss.id }

// Revision is the negotiated protocol revision, "" before initialize.
func (ss *Session) Revision() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.revision == "" {
		return ss.assumed
	}
	return ss.revision
}

// Done is closed when the session ends.
func (ss *Session) Done() <-chan struct{} { return ss.done }

// Close ends the session: requests in flight are cancelled and the server
// forgets it. Close is idempotent.
func (ss *Session) Close() {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return
	}
	ss.closed = true
	if ss.expiry != nil {
		ss.expiry.Stop()
	}
	for _, cancel := range ss.inflight {
		cancel()
	}
	ss.mu.Unlock()
	close(ss.done)
	ss.srv.mu.Lock()
	delete(ss.srv.sessions, ss.id)
	ss.srv.last = time.Now()
	ss.srv.mu.Unlock()
	if ss.srv.onSession != nil {
		ss.srv.onSession(ss.id, false)
	}
}

// HandleBody decodes a body (a message or a batch) and handles it; see Handle.
func (ss *Session) HandleBody(ctx context.Context, body []byte, emit func(*jsonrpc.Message)) []byte {
	msgs, batch, derr := jsonrpc.Decode(body)
	if derr != nil {
		return ss.encode(jsonrpc.NewError(nil, derr))
	}
	return ss.Handle(ctx, msgs, batch, emit)
}

// Handle answers decoded messages and returns the encoded reply: one
// response, an array for a batch, or nil when nothing is owed (only
// notifications and responses came). emit receives the notifications a
// request sends while it runs (progress, log messages) before its response;
// it may be nil, and may be called from other goroutines.
//
// Batches are answered only under revision 2025-03-26; otherwise, or when
// empty, the whole batch gets one -32600.
func (ss *Session) Handle(ctx context.Context, msgs []*jsonrpc.Message, batch bool, emit func(*jsonrpc.Message)) []byte {
	r := ss.Answer(ctx, msgs, batch, emit)
	defer r.Release()
	return r.Bytes()
}

// batchRefusal is the error a whole batch gets: batches outside revision
// 2025-03-26, an empty batch, one over MaxBatch; nil for a batch served.
func (ss *Session) batchRefusal(msgs []*jsonrpc.Message) *jsonrpc.Error {
	if rev := ss.Revision(); !mcp.BatchesAllowed(rev) {
		if rev == "" {
			rev = "none yet"
		}
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest,
			"invalid request: batches are accepted only under protocol revision %s (this session: %s); send one message per request", mcp.Rev20250326, rev)
	}
	if len(msgs) == 0 {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: empty batch")
	}
	if len(msgs) > ss.srv.limits.MaxBatch {
		return batchTooLong(len(msgs), ss.srv.limits.MaxBatch)
	}
	return nil
}

func (ss *Session) encode(v any) []byte {
	b, err := jsonrpc.Encode(v)
	if err != nil {
		// Only a handler's result can fail to encode, and results are
		// encoded earlier; this is a last resort.
		b, _ = jsonrpc.Encode(jsonrpc.NewError(nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: encoding the answer")))
	}
	return b
}

// errorReply builds an error response with its text masked.
func (ss *Session) errorReply(id json.RawMessage, e *jsonrpc.Error) *jsonrpc.Message {
	masked := *e
	masked.Message = ss.srv.mask(e.Message)
	return jsonrpc.NewError(id, &masked)
}

func (ss *Session) touch() {
	now := time.Now()
	ss.mu.Lock()
	ss.last = now
	ss.mu.Unlock()
	ss.srv.mu.Lock()
	ss.srv.last = now
	ss.srv.mu.Unlock()
}

func (ss *Session) handleOne(ctx context.Context, m *jsonrpc.Message, emit func(*jsonrpc.Message), inBatch bool) *jsonrpc.Message {
	ss.touch()
	switch m.Kind() {
	case jsonrpc.KindInvalid:
		return ss.errorReply(m.ID, m.Invalid)
	case jsonrpc.KindResponse:
		ss.deliverResponse(m) // an answer to a request vxd sent (elicit.go)
		return nil
	case jsonrpc.KindNotification:
		ss.handleNotification(m)
		return nil
	}
	if inBatch && m.Method == mcp.MethodInitialize {
		return ss.errorReply(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: initialize must be sent alone, not in a batch"))
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := m.IDKey()
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return ss.errorReply(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: the session has ended; initialize a new one"))
	}
	if _, dup := ss.inflight[key]; dup {
		ss.mu.Unlock()
		return ss.errorReply(m.ID, duplicateID(m.ID))
	}
	ss.inflight[key] = cancel
	ss.mu.Unlock()
	ss.srv.mu.Lock()
	ss.srv.requests++
	ss.srv.inFlight++
	ss.srv.mu.Unlock()
	start := time.Now()
	defer func() {
		ss.mu.Lock()
		delete(ss.inflight, key)
		ss.last = time.Now()
		ss.mu.Unlock()
		ss.srv.mu.Lock()
		ss.srv.inFlight--
		ss.srv.last = time.Now()
		ss.srv.mu.Unlock()
	}()

	result, err := ss.dispatch(ctx, m, emit)
	if e := ss.srv.log.Debug(); e != nil { // (nil below debug: nothing to build)
		e.Str("session", ss.id).Str("method", m.Method).Dur("took", time.Since(start)).Bool("ok", err == nil).Msg("mcp request")
	}
	if err != nil {
		if errors.Is(err, errCancelled) {
			return nil // MCP: a cancelled request is owed no answer.
		}
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) {
			rpcErr = jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: %v", err)
		}
		return ss.errorReply(m.ID, rpcErr)
	}
	if raw, ok := result.(json.RawMessage); ok {
		return &jsonrpc.Message{ID: m.ID, Result: ss.srv.maskJSON(raw)}
	}
	if raw, ok := result.(masked); ok {
		return &jsonrpc.Message{ID: m.ID, Result: json.RawMessage(raw)}
	}
	res, encErr := jsonrpc.Encode(result)
	if encErr != nil {
		return ss.errorReply(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: encoding the result of %s: %v", m.Method, encErr))
	}
	return &jsonrpc.Message{ID: m.ID, Result: ss.srv.maskJSON(res)}
}

var errCancelled = errors.New("request cancelled by the client")

func (ss *Session) handleNotification(m *jsonrpc.Message) {
	switch m.Method {
	case mcp.NotifyCancelled:
		var p mcp.CancelledParams
		if json.Unmarshal(m.Params, &p) != nil || len(p.RequestID) == 0 {
			return
		}
		ss.mu.Lock()
		cancel := ss.inflight[string(p.RequestID)]
		ss.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case mcp.NotifyInitialized:
		// Nothing to do: requests are served once initialize has answered.
	}
}

func invalidParams(format string, args ...any) error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: "+format, args...)
}

// decodeParams reads params that must be an object (absent counts as {}).
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] != '{' {
		return invalidParams("params must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("%v", err)
	}
	return nil
}

func (ss *Session) dispatch(ctx context.Context, m *jsonrpc.Message, emit func(*jsonrpc.Message)) (any, error) {
	if ss.stateless != nil {
		return ss.dispatchStateless(ctx, m, emit)
	}
	if !mcp.Answers(mcp.SessionEra, m.Method) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q", m.Method)
	}
	switch m.Method {
	case mcp.MethodPing:
		return struct{}{}, nil
	case mcp.MethodInitialize:
		return ss.initialize(m.Params)
	}
	if ss.Revision() == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: %s before initialize; send initialize first", m.Method)
	}
	s := ss.srv
	switch m.Method {
	case mcp.MethodToolsList:
		return mcp.ListToolsResult{Tools: listDefs(s, &s.tools, func(t Tool) mcp.Tool { return t.Def })}, nil
	case mcp.MethodToolsCall:
		return ss.callTool(ctx, m.Params, emit)
	case mcp.MethodResourcesList:
		return mcp.ListResourcesResult{Resources: listDefs(s, &s.resources, func(r Resource) mcp.Resource { return r.Def })}, nil
	case mcp.MethodResourceTemplates:
		return mcp.ListResourceTemplatesResult{ResourceTemplates: listDefs(s, &s.templates, func(t compiledTemplate) mcp.ResourceTemplate { return t.Def })}, nil
	case mcp.MethodResourcesRead:
		return ss.readResource(ctx, m.Params)
	case mcp.MethodPromptsList:
		return mcp.ListPromptsResult{Prompts: listDefs(s, &s.prompts, func(p Prompt) mcp.Prompt { return p.Def })}, nil
	case mcp.MethodPromptsGet:
		return ss.getPrompt(ctx, m.Params)
	case mcp.MethodComplete:
		return ss.complete(ctx, m.Params)
	case mcp.MethodSubscribe, mcp.MethodUnsubscribe:
		return ss.subscribe(m.Params, m.Method == mcp.MethodSubscribe)
	case mcp.MethodSetLevel:
		var p mcp.SetLevelParams
		if err := decodeParams(m.Params, &p); err != nil {
			return nil, err
		}
		if p.Level.Severity() < 0 {
			return nil, invalidParams("unknown logging level %q; use debug, info, notice, warning, error, critical, alert or emergency", p.Level)
		}
		ss.mu.Lock()
		ss.level = p.Level
		ss.mu.Unlock()
		return struct{}{}, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q", m.Method)
}

func (ss *Session) initialize(params json.RawMessage) (any, error) {
	var p mcp.InitializeParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == "" {
		return nil, invalidParams("initialize needs a protocolVersion, such as %q", mcp.Latest)
	}
	rev := mcp.Negotiate(p.ProtocolVersion)
	ss.mu.Lock()
	if ss.revision != "" {
		ss.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "invalid request: the session is already initialized")
	}
	ss.revision = rev
	ss.mu.Unlock()
	ss.noteCapabilities(rev, p.Capabilities)
	s := ss.srv
	caps := mcp.ServerCapabilities{
		Tools:     &mcp.ListChanged{ListChanged: true},
		Resources: &mcp.ResourceCapabilities{ListChanged: true},
		Prompts:   &mcp.ListChanged{ListChanged: true},
		Logging:   &struct{}{},
	}
	if ss.assumed != "" {
		// A stateless session has no stream to announce changes or send
		// log messages on, and the platform's catalog is tools only.
		caps = mcp.ServerCapabilities{Tools: &mcp.ListChanged{}}
	}
	return mcp.InitializeResult{
		ProtocolVersion: rev,
		Capabilities:    s.extraCapabilities(caps),
		ServerInfo:      mcp.Implementation{Name: s.name, Version: s.version},
		Instructions:    s.instructions,
	}, nil
}

func (ss *Session) callTool(ctx context.Context, params json.RawMessage, emit func(*jsonrpc.Message)) (any, error) {
	if len(params) == 0 || params[0] != '{' {
		return nil, invalidParams("tools/call needs params {name, arguments}")
	}
	p, err := readCallParams(params)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	var name string
	if len(p.Name) == 0 || p.Name[0] != '"' || jsonrpc.StringValue(p.Name, &name) != nil {
		return nil, invalidParams("tools/call needs a tool name (a string)")
	}
	args := p.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	} else if args[0] != '{' {
		return nil, invalidParams("arguments of %s must be a JSON object, got %s", name, jsonKind(args))
	}
	s := ss.srv
	tool := s.findTool(name)
	if tool == nil {
		return nil, invalidParams("unknown tool %q; tools/list names the tools", name)
	}

	call := &Call{Name: name, Arguments: args, Progress: func(float64, float64, string) {}}
	if err := ss.extendCall(ctx, call, params, emit); err != nil {
		return nil, err
	}
	if p.Meta != nil && len(p.Meta.ProgressToken) > 0 && (p.Meta.ProgressToken[0] == '"' || jsonKind(p.Meta.ProgressToken) == "a number") {
		call.Progress = progressFunc(ctx, p.Meta.ProgressToken, emit)
	}
	call.Log = ss.logFunc(ctx, emit)

	if s.calls != nil {
		select {
		case s.calls <- struct{}{}:
			defer func() { <-s.calls }()
		case <-ctx.Done():
			return nil, errCancelled
		}
	}
	value, err := runHandler(ctx, tool.Handler, call)
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		return nil, errCancelled
	}
	room, bounded := ctx.Value(roomKey{}).(answerRoom)
	if !bounded {
		room.left = -1
	}
	return s.toolResult(name, call, value, err, room)
}

// findTool returns the tool named name, nil when there is none.
func (s *Server) findTool(name string) *Tool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.tools {
		if s.tools[i].Def.Name == name {
			return &s.tools[i]
		}
	}
	return nil
}

// progressFunc reports a call's progress as notifications for token,
// until ctx ends.
func progressFunc(ctx context.Context, token json.RawMessage, emit func(*jsonrpc.Message)) func(progress, total float64, message string) {
	return func(progress, total float64, message string) {
		if ctx.Err() != nil {
			return
		}
		n, err := jsonrpc.NewNotification(mcp.NotifyProgress, mcp.ProgressParams{ProgressToken: token, Progress: progress, Total: total, Message: message})
		if err == nil {
			emit(n)
		}
	}
}

// logFunc sends a call's log messages, masked, as notifications at the
// session's logging level or above, until ctx ends.
func (ss *Session) logFunc(ctx context.Context, emit func(*jsonrpc.Message)) func(level mcp.LoggingLevel, data any) {
	s := ss.srv
	return func(level mcp.LoggingLevel, data any) {
		ss.mu.Lock()
		min := ss.level
		ss.mu.Unlock()
		if ss.silent || ctx.Err() != nil || level.Severity() < min.Severity() {
			return
		}
		if text, ok := data.(string); ok {
			data = s.mask(text)
		}
		n, err := jsonrpc.NewNotification(mcp.NotifyMessage, mcp.LoggingMessageParams{Level: level, Logger: s.name, Data: data})
		if err == nil {
			emit(n)
		}
	}
}

// toolResult turns what tool name's handler returned into the answer: a
// handler's error is a masked error result unless it is a JSON-RPC error,
// error results are masked, and other values are encoded.
func (s *Server) toolResult(name string, call *Call, value any, err error, room answerRoom) (any, error) {
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return nil, rpcErr
		}
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent(s.mask(err.Error()))}, IsError: true}, nil
	}
	if r, ok := value.(*mcp.CallToolResult); ok {
		if r.IsError {
			masked := *r
			masked.Content = make([]mcp.Content, len(r.Content))
			for i, c := range r.Content {
				c.Text = s.mask(c.Text)
				masked.Content[i] = c
			}
			return &masked, nil
		}
		return r, nil
	}
	if ir, ok := value.(*InputRequired); ok && call.Stateless != nil {
		return ir, nil
	}
	if enc, ok := value.(Encoded); ok {
		return json.RawMessage(enc), nil
	}
	if enc, ok := value.(Masked); ok {
		return masked(enc), nil
	}
	raw, err := jsonrpc.Encode(value)
	if err != nil {
		return nil, fmt.Errorf("encoding the result of %s: %w", name, err)
	}
	// Refused before the value is doubled into text and structuredContent.
	if room.left >= 0 && 2*len(raw) > room.left && room.busy {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "server busy: the answer to tools/call "+
			"%q (%d bytes twice over, as text and as structuredContent) does not fit beside the answers being sent to "+
			"other requests; try again shortly", name, len(raw))
	}
	if room.left >= 0 && 2*len(raw) > room.left {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "%v: the answer to tools/call %q is %d "+
			"bytes twice over (as text and as structuredContent), more than the %d bytes left of the server's limit of %d "+
			"bytes per body (see Limits in docs/mcp.md); ask for less, or send the requests of a batch separately",
			ErrTooLarge, name, len(raw), room.left, room.max)
	}
	return json.RawMessage(encodeRaw(raw)), nil
}

// Encoded is a tool answer already encoded by EncodeResult; a handler may
// return one it kept (an answer that only changes with the workspace
// model) to skip encoding it again.
type Encoded []byte

// EncodeResult encodes value as a tools/call result: the value twice, as
// text and as structuredContent, written once and joined.
func EncodeResult(value any) (Encoded, error) {
	raw, err := jsonrpc.Encode(value)
	if err != nil {
		return nil, err
	}
	return encodeRaw(raw), nil
}

func encodeRaw(raw []byte) Encoded {
	b := make([]byte, 0, 2*len(raw)+64)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = jsonrpc.AppendString(b, string(raw))
	b = append(b, `}]`...)
	if raw[0] == '{' {
		b = append(b, `,"structuredContent":`...)
		b = append(b, raw...)
	}
	return Encoded(append(b, '}'))
}

// runHandler calls h, turning a panic into an internal error so one tool's
// bug cannot take the daemon down.
func runHandler(ctx context.Context, h func(context.Context, *Call) (any, error), call *Call) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error: tool %s failed: %v", call.Name, r)
		}
	}()
	if h == nil {
		return nil, fmt.Errorf("tool %s has no handler", call.Name)
	}
	return h(ctx, call)
}

func jsonKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func (ss *Session) readResource(ctx context.Context, params json.RawMessage) (any, error) {
	var p mcp.ReadResourceParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams("resources/read needs a uri")
	}
	s := ss.srv
	s.mu.Lock()
	var read func(context.Context) (*mcp.ReadResourceResult, error)
	for _, r := range s.resources {
		if r.Def.URI == p.URI {
			read = r.Read
			break
		}
	}
	if read == nil {
		for _, t := range s.templates {
			if vars, ok := matchTemplate(t.re, p.URI); ok {
				for name, v := range vars {
					if nul, bad := jsonrpc.StringFault(v); bad {
						s.mu.Unlock()
						return nil, textFault(name, nul)
					}
				}
				tr := t.Read
				read = func(ctx context.Context) (*mcp.ReadResourceResult, error) { return tr(ctx, p.URI, vars) }
				break
			}
		}
	}
	s.mu.Unlock()
	if read == nil {
		return nil, &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: fmt.Sprintf("resource not found: %s; resources/list and resources/templates/list name what can be read", p.URI)}
	}
	res, err := read(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p.URI, err)
	}
	return res, nil
}

func (ss *Session) getPrompt(ctx context.Context, params json.RawMessage) (any, error) {
	if f := jsonrpc.CheckText(params); f != nil {
		if arg, ok := strings.CutPrefix(f.Path, "arguments."); ok {
			return nil, textFault(arg, f.NUL)
		}
	}
	var p mcp.GetPromptParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	s := ss.srv
	s.mu.Lock()
	var prompt *Prompt
	for i := range s.prompts {
		if s.prompts[i].Def.Name == p.Name {
			prompt = &s.prompts[i]
			break
		}
	}
	s.mu.Unlock()
	if prompt == nil {
		return nil, invalidParams("unknown prompt %q; prompts/list names the prompts", p.Name)
	}
	for _, a := range prompt.Def.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return nil, invalidParams("prompt %s needs the argument %q", p.Name, a.Name)
		}
	}
	if p.Arguments == nil {
		p.Arguments = map[string]string{}
	}
	res, err := prompt.Get(ctx, p.Arguments)
	if err != nil {
		return nil, fmt.Errorf("rendering prompt %s: %w", p.Name, err)
	}
	return res, nil
}

// textFault refuses a prompt's argument or a URI template's variable
// holding a NUL or bytes that are not UTF-8, as tools refuse theirs.
func textFault(name string, nul bool) error {
	if nul {
		return invalidParams("argument %q must be text without NUL characters, and it holds one (\\u0000)", name)
	}
	return invalidParams("argument %q must be valid UTF-8 text, and it holds a byte sequence (or an unpaired surrogate escape) that is not", name)
}

// listDefs copies a catalog's definitions under the server's lock (the
// catalog slice is replaced whole by Set*, so it is read through items).
func listDefs[T, D any](s *Server, items *[]T, def func(T) D) []D {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]D, len(*items))
	for i, it := range *items {
		out[i] = def(it)
	}
	return out
}
