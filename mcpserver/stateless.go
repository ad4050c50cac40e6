package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// The stateless era (revision 2026-07-28): a request that carries its revision in
// params._meta is served on its own, with no initialize and no session.
// It runs through a transient Session (never registered, so it is not
// counted, evicted or announced as one) whose dispatch is dispatchStateless;
// the catalog handlers are the same as the session era's.

// Freshness hints of cacheable results. The catalog changes only when the
// configuration does, and subscriptions/listen announces that at once, so
// lists may be kept a minute; resources (the latest run, logs, config)
// change with every run and are never fresh; discovery changes only with
// the vxd binary.
const (
	ttlDiscover = 10 * time.Minute
	ttlList     = time.Minute
	ttlRead     = 0
)

// maxListeners bounds the subscriptions/listen streams open at once, and
// maxListenURIs the resources one stream may follow.
const (
	maxListeners  = 256
	maxListenURIs = 128
)

// listenSet holds the server's subscriptions/listen streams.
type listenSet struct {
	mu        sync.Mutex
	listeners map[*listener]struct{}
	closed    chan struct{}
	once      sync.Once
}

type listener struct {
	id     json.RawMessage
	filter mcp.SubscriptionFilter
	emit   func(*jsonrpc.Message)
}

func (s *Server) listenStreams() *listenSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listens == nil {
		s.listens = &listenSet{listeners: map[*listener]struct{}{}, closed: make(chan struct{})}
	}
	return s.listens
}

// CheckStateless validates what a stateless request says about itself: a
// readable _meta (-32602), a revision vx serves statelessly (-32022 with
// {supported, requested}), the client's capabilities (-32602), and a method
// of the era (-32601). On success it returns the parsed _meta.
func CheckStateless(m *jsonrpc.Message) (mcp.StatelessMeta, *jsonrpc.Error) {
	meta, err := mcp.ParseStatelessMeta(m.Params)
	if err != nil {
		return meta, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	if meta.ProtocolVersion == "" {
		return meta, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: params._meta[%q] is required in revision %s (or open a session with initialize)", mcp.MetaProtocolVersion, mcp.Rev20260728)
	}
	if !mcp.IsStateless(meta.ProtocolVersion) {
		data, _ := json.Marshal(mcp.UnsupportedVersionData{Supported: mcp.AllSupported(), Requested: meta.ProtocolVersion})
		msg := fmt.Sprintf("unsupported protocol version %q: revisions served per request are %v", meta.ProtocolVersion, mcp.StatelessSupported())
		if mcp.IsSupported(meta.ProtocolVersion) {
			msg += fmt.Sprintf("; %s is served in a session opened by initialize", meta.ProtocolVersion)
		}
		return meta, &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: msg, Data: data}
	}
	if !meta.HasCapabilities {
		return meta, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: params._meta[%q] is required (send {} when the client declares none)", mcp.MetaClientCapabilities)
	}
	if !mcp.Answers(mcp.StatelessEra, m.Method) {
		return meta, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q is not a method of revision %s", m.Method, meta.ProtocolVersion)
	}
	return meta, nil
}

// HandleStateless serves one stateless request (see CheckStateless) and returns
// its encoded response, or nil when the request was cancelled (ctx ended)
// and is owed nothing. emit receives the request's notifications
// (progress, log messages at or above _meta's logLevel, and the stream of
// a subscriptions/listen) before the response.
func (s *Server) HandleStateless(ctx context.Context, m *jsonrpc.Message, emit func(*jsonrpc.Message)) []byte {
	meta, rpcErr := CheckStateless(m)
	return s.HandleChecked(ctx, m, meta, rpcErr, emit)
}

// HandleChecked is HandleStateless for a transport that already ran
// CheckStateless on m (and answered what it refused, if it wished).
func (s *Server) HandleChecked(ctx context.Context, m *jsonrpc.Message, meta mcp.StatelessMeta, rpcErr *jsonrpc.Error, emit func(*jsonrpc.Message)) []byte {
	r := s.AnswerChecked(ctx, m, meta, rpcErr, emit)
	defer r.Release()
	return r.Bytes()
}

// AnswerChecked is HandleChecked leaving the reply to be written (nil
// when none is owed): the transport calls its Release once it is, as for
// Session.Answer, since the answer counts against the server's bounds
// until then.
func (s *Server) AnswerChecked(ctx context.Context, m *jsonrpc.Message, meta mcp.StatelessMeta, rpcErr *jsonrpc.Error, emit func(*jsonrpc.Message)) *Reply {
	if emit == nil {
		emit = func(*jsonrpc.Message) {}
	}
	ss := &Session{srv: s, stateless: &meta, level: meta.LogLevel, silent: meta.LogLevel == "",
		revision: meta.ProtocolVersion, inflight: map[string]context.CancelFunc{}, done: make(chan struct{}), last: time.Now()}
	if rpcErr != nil {
		return newReply(false, ss.errorReply(m.ID, rpcErr))
	}
	budget := s.newBudget()
	if r := ss.answerWithin(ctx, budget, m, emit, false); r != nil {
		return newReply(false, r).holding(budget)
	}
	budget.release()
	return nil
}

func (ss *Session) dispatchStateless(ctx context.Context, m *jsonrpc.Message, emit func(*jsonrpc.Message)) (any, error) {
	s := ss.srv
	var v any
	var err error
	ttl, scope, cacheable := ttlList, mcp.CachePrivate, true
	switch m.Method {
	case mcp.MethodDiscover:
		v = mcp.DiscoverResult{SupportedVersions: mcp.AllSupported(), Capabilities: s.statelessCapabilities(), Instructions: s.instructions}
		ttl, scope = ttlDiscover, mcp.CachePublic
	case mcp.MethodToolsList:
		v = mcp.ListToolsResult{Tools: listDefs(s, &s.tools, func(t Tool) mcp.Tool { return t.Def })}
	case mcp.MethodResourcesList:
		v = mcp.ListResourcesResult{Resources: listDefs(s, &s.resources, func(r Resource) mcp.Resource { return r.Def })}
	case mcp.MethodResourceTemplates:
		v = mcp.ListResourceTemplatesResult{ResourceTemplates: listDefs(s, &s.templates, func(t compiledTemplate) mcp.ResourceTemplate { return t.Def })}
	case mcp.MethodPromptsList:
		v = mcp.ListPromptsResult{Prompts: listDefs(s, &s.prompts, func(p Prompt) mcp.Prompt { return p.Def })}
	case mcp.MethodResourcesRead:
		v, err = ss.readResource(ctx, m.Params)
		ttl = ttlRead
		// The revision reports an unknown resource as invalid params.
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == mcp.CodeResourceNotFound {
			err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: rpcErr.Message}
		}
	case mcp.MethodToolsCall:
		v, err = ss.callTool(ctx, m.Params, emit)
		if mv, ok := v.(masked); ok {
			v = json.RawMessage(mv) // joined with the era's fields, then masked whole
		}
		if ir, ok := v.(*InputRequired); ok && err == nil {
			return s.inputRequiredResult(ir)
		}
		cacheable = false
	case mcp.MethodPromptsGet:
		v, err = ss.getPrompt(ctx, m.Params)
		cacheable = false
	case mcp.MethodSubscriptionsListen:
		return ss.listen(ctx, m, emit)
	case mcp.MethodComplete:
		v, err = ss.complete(ctx, m.Params)
		cacheable = false
	default:
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q", m.Method)
	}
	if err != nil {
		return nil, err
	}
	fields := map[string]any{}
	if cacheable {
		fields["ttlMs"] = ttl.Milliseconds()
		fields["cacheScope"] = scope
	}
	return s.completeResult(v, nil, fields)
}

func (s *Server) statelessCapabilities() mcp.ServerCapabilities {
	return s.extraCapabilities(mcp.ServerCapabilities{
		Tools:     &mcp.ListChanged{ListChanged: true},
		Resources: &mcp.ResourceCapabilities{ListChanged: true},
		Prompts:   &mcp.ListChanged{ListChanged: true},
		Logging:   &struct{}{},
	})
}

// completeResult encodes v as a result of the era: resultType "complete",
// the server's identity (and any extra _meta) in _meta, and fields (the
// caching hints) beside v's own members.
func (s *Server) completeResult(v any, meta map[string]any, fields map[string]any) (json.RawMessage, error) {
	var raw []byte
	switch r := v.(type) {
	case json.RawMessage:
		raw = r
	default:
		b, err := jsonrpc.Encode(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if len(raw) < 2 || raw[0] != '{' {
		return nil, fmt.Errorf("a result must be a JSON object")
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta[mcp.MetaServerInfo] = mcp.Implementation{Name: s.name, Version: s.version}
	head := map[string]any{"resultType": mcp.ResultComplete, "_meta": meta}
	for k, v := range fields {
		head[k] = v
	}
	hb, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	rest := raw[1:]
	out := make([]byte, 0, len(hb)+len(raw)+1)
	out = append(out, hb[:len(hb)-1]...)
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...), nil
}

// listen serves subscriptions/listen: an acknowledgement with the filter
// vx honours, then the opted-in notifications, each tagged with the
// subscription's id, until the client closes the stream (no answer is
// owed) or the server shuts down (a complete result ends it gracefully).
func (ss *Session) listen(ctx context.Context, m *jsonrpc.Message, emit func(*jsonrpc.Message)) (any, error) {
	var p mcp.ListenParams
	if err := decodeParams(m.Params, &p); err != nil {
		return nil, err
	}
	if p.Notifications == nil {
		return nil, invalidParams("subscriptions/listen needs params.notifications, e.g. {\"toolsListChanged\": true}")
	}
	f := *p.Notifications
	if len(f.ResourceSubscriptions) > maxListenURIs {
		return nil, invalidParams("notifications.resourceSubscriptions names %d URIs; at most %d per stream", len(f.ResourceSubscriptions), maxListenURIs)
	}
	s := ss.srv
	honoured := mcp.SubscriptionFilter{ToolsListChanged: f.ToolsListChanged, PromptsListChanged: f.PromptsListChanged, ResourcesListChanged: f.ResourcesListChanged}
	for _, uri := range f.ResourceSubscriptions {
		if s.subscribable(uri) {
			honoured.ResourceSubscriptions = append(honoured.ResourceSubscriptions, uri)
		}
	}
	ls := s.listenStreams()
	l := &listener{id: m.ID, filter: honoured, emit: emit}
	ls.mu.Lock()
	if len(ls.listeners) >= maxListeners {
		ls.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "too many subscriptions/listen streams are open (%d); close one first", maxListeners)
	}
	ls.listeners[l] = struct{}{}
	ls.mu.Unlock()
	defer func() {
		ls.mu.Lock()
		delete(ls.listeners, l)
		ls.mu.Unlock()
	}()
	if ack, err := jsonrpc.NewNotification(mcp.NotifySubscriptionsAcknowledged, map[string]any{
		"_meta": map[string]json.RawMessage{mcp.MetaSubscriptionID: m.ID}, "notifications": honoured}); err == nil {
		emit(ack)
	}
	select {
	case <-ctx.Done():
		return nil, errCancelled
	case <-ls.closed:
		return s.completeResult(struct{}{}, map[string]any{mcp.MetaSubscriptionID: m.ID}, nil)
	}
}

// subscribable reports whether uri names a resource whose updates vx
// announces: a resource or template marked Subscribable.
func (s *Server) subscribable(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.resources {
		if r.Subscribable && r.Def.URI == uri {
			return true
		}
	}
	for _, t := range s.templates {
		if _, ok := matchTemplate(t.re, uri); ok && t.Subscribable {
			return true
		}
	}
	return false
}

// notifyListeners sends method (a list_changed notification) to every
// listen stream that opted in to it.
func (s *Server) notifyListeners(method string) {
	s.eachListener(func(f mcp.SubscriptionFilter) bool {
		switch method {
		case mcp.NotifyToolsListChanged:
			return f.ToolsListChanged
		case mcp.NotifyPromptsListChanged:
			return f.PromptsListChanged
		case mcp.NotifyResourcesChanged:
			return f.ResourcesListChanged
		}
		return false
	}, method, nil)
}

func (s *Server) eachListener(want func(mcp.SubscriptionFilter) bool, method string, params map[string]any) {
	ls := s.listenStreams()
	ls.mu.Lock()
	var targets []*listener
	for l := range ls.listeners {
		if want(l.filter) {
			targets = append(targets, l)
		}
	}
	ls.mu.Unlock()
	for _, l := range targets {
		p := map[string]any{"_meta": map[string]json.RawMessage{mcp.MetaSubscriptionID: l.id}}
		for k, v := range params {
			p[k] = v
		}
		if n, err := jsonrpc.NewNotification(method, p); err == nil {
			l.emit(n)
		}
	}
}

// endListeners ends every listen stream gracefully (the server is closing).
func (s *Server) endListeners() {
	ls := s.listenStreams()
	ls.once.Do(func() { close(ls.closed) })
}
