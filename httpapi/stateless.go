package httpapi

import (
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// isStateless reports whether a POST belongs to the stateless era: one
// message whose params._meta carries the revision, or one with no session
// under a 2026-07-28 MCP-Protocol-Version header (a notification, as a
// client posts when it cancels; or a request whose _meta lacks the
// revision or is unreadable, which the era refuses as malformed: -32602).
// Anything else, a bare server/discover probe (no _meta at all) included,
// is the session era's, answered as before (initialize always opens a
// session).
func isStateless(r *http.Request, msgs []*jsonrpc.Message, batch bool) bool {
	if batch || len(msgs) != 1 || msgs[0].Method == mcp.MethodInitialize {
		return false
	}
	m := msgs[0]
	if mcp.HasStatelessMeta(m.Params) {
		return true
	}
	if m.Method == mcp.MethodDiscover && !mcp.HasMeta(m.Params) {
		return false
	}
	return header(r.Header, hdrSessionID) == "" && mcp.IsStateless(header(r.Header, hdrProtocolVersion))
}

// Stateless serves the stateless era of an MCP server over HTTP with the
// code of vxd's /mcp, for another endpoint that keeps its own
// authentication and session-era handling (the platform's /mcp): both
// endpoints apply the same header rules, refusals and answers.
type Stateless struct{ h *mcpHandler }

// NewStateless returns the stateless era of srv; opts as NewMCPHandler's
// (KeepAlive and Logger apply; the body limit is the caller's).
func NewStateless(srv *mcpserver.Server, opts *MCPOptions) *Stateless {
	return &Stateless{h: NewMCPHandler(srv, opts).(*mcpHandler)}
}

// Serve answers a decoded POST when it belongs to the stateless era (see
// isStateless) and reports whether it did; otherwise it writes nothing and
// the caller serves the session era.
func (x *Stateless) Serve(w http.ResponseWriter, r *http.Request, msgs []*jsonrpc.Message, batch bool) bool {
	if !isStateless(r, msgs, batch) {
		return false
	}
	_, sseOK, acceptable := accepts(r)
	if !acceptable {
		http.Error(w, "not acceptable: send Accept: application/json, text/event-stream", http.StatusNotAcceptable)
		return true
	}
	x.h.serveStateless(w, r, msgs[0], sseOK)
	return true
}

// serveStateless answers one stateless request: the transport's header rules
// first (MCP-Protocol-Version equal to _meta's revision, Mcp-Method equal
// to the method, Mcp-Name equal to params.name or params.uri where the
// method has one; else 400 with -32020), then the revision's own checks
// (400 for -32602 and -32022, 404 for an unknown method), then the
// request itself, whose SSE stream closing cancels it. Any Mcp-Session-Id
// is ignored: the era has no sessions.
func (h *mcpHandler) serveStateless(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, sseOK bool) {
	switch m.Kind() {
	case jsonrpc.KindNotification:
		// The revision defines no client notifications over HTTP (closing a
		// stream is the cancellation); accept and ignore.
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindRequest:
	default:
		writeError(w, http.StatusBadRequest, m.ID, jsonrpc.CodeInvalidRequest, "invalid request: POST one JSON-RPC request (responses are not sent to this server in revision %s)", mcp.Rev20260728)
		return
	}
	meta, checkErr := mcpserver.CheckStateless(m)
	if e := checkHeaders(r, m, meta, checkErr); e != nil {
		h.log.Debug().Str("method", m.Method).Str("reason", e.Message).Msg("mcp: header mismatch")
		writeRPCError(w, http.StatusBadRequest, m.ID, e)
		return
	}
	if e := checkErr; e != nil {
		status := http.StatusBadRequest
		if e.Code == jsonrpc.CodeMethodNotFound {
			status = http.StatusNotFound
		}
		writeRPCError(w, status, m.ID, e)
		return
	}
	if m.Method == mcp.MethodSubscriptionsListen && !sseOK {
		writeError(w, http.StatusNotAcceptable, m.ID, jsonrpc.CodeInvalidRequest, "invalid request: subscriptions/listen answers with an event stream; send Accept: application/json, text/event-stream")
		return
	}
	if m.Method == mcp.MethodSubscriptionsListen {
		release, ok := h.streamSlot(w, m.ID)
		if !ok {
			return
		}
		defer release()
	}
	rw := &statelessWriter{w: w, sse: sseOK}
	stop := make(chan struct{})
	if m.Method == mcp.MethodSubscriptionsListen && sseOK {
		// A listen stream outlives any server-wide write timeout.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		go rw.keepAlive(h.keepAlive, stop)
	}
	reply := h.srv.AnswerChecked(r.Context(), m, meta, nil, rw.notify)
	defer reply.Release()
	close(stop)
	rw.finish(reply.Bytes())
}

// checkHeaders applies the revision's header rules to a request whose
// _meta CheckStateless read (an unreadable _meta is its -32602, not ours).
func checkHeaders(r *http.Request, m *jsonrpc.Message, meta mcp.StatelessMeta, checkErr *jsonrpc.Error) *jsonrpc.Error {
	mismatch := func(format string, args ...any) *jsonrpc.Error {
		return jsonrpc.Errorf(mcp.CodeHeaderMismatch, "header mismatch: "+format, args...)
	}
	if checkErr != nil && meta.ProtocolVersion == "" && checkErr.Code == jsonrpc.CodeInvalidParams {
		return nil
	}
	v := r.Header.Get(mcp.HeaderProtocolVersion)
	switch {
	case v == "":
		return mismatch("the %s header is required on every POST and must equal params._meta[%q]", mcp.HeaderProtocolVersion, mcp.MetaProtocolVersion)
	case meta.ProtocolVersion != "" && v != meta.ProtocolVersion:
		return mismatch("%s header %q does not match params._meta[%q] %q", mcp.HeaderProtocolVersion, v, mcp.MetaProtocolVersion, meta.ProtocolVersion)
	}
	switch got := r.Header.Get(mcp.HeaderMethod); {
	case got == "":
		return mismatch("the %s header is required on every request and must equal the method (%q)", mcp.HeaderMethod, m.Method)
	case got != m.Method:
		return mismatch("%s header %q does not match the method %q", mcp.HeaderMethod, got, m.Method)
	}
	want, needed := mcp.NameCarrier(m.Method, m.Params)
	if !needed {
		return nil
	}
	raw := r.Header.Get(mcp.HeaderName)
	if raw == "" {
		return mismatch("the %s header is required on %s and must equal %s", mcp.HeaderName, m.Method, nameField(m.Method))
	}
	got, err := mcp.DecodeHeaderValue(raw)
	if err != nil {
		return mismatch("%s header: %v", mcp.HeaderName, err)
	}
	if got != want {
		return mismatch("%s header %q does not match %s %q", mcp.HeaderName, got, nameField(m.Method), want)
	}
	return nil
}

func nameField(method string) string {
	if method == mcp.MethodResourcesRead {
		return "params.uri"
	}
	return "params.name"
}

func writeRPCError(w http.ResponseWriter, status int, id []byte, e *jsonrpc.Error) {
	body, _ := jsonrpc.Encode(jsonrpc.NewError(id, e))
	writeJSON(w, status, body)
}

// statelessWriter answers one stateless POST: as JSON, or as an SSE stream
// once the request emits a notification and the client accepts SSE. A
// listen stream also carries keep-alive comments.
type statelessWriter struct {
	w   http.ResponseWriter
	sse bool

	mu       sync.Mutex
	started  bool
	finished bool
}

func (rw *statelessWriter) start() {
	if !rw.started {
		rw.started = true
		h := rw.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		rw.w.WriteHeader(http.StatusOK)
	}
}

func (rw *statelessWriter) notify(m *jsonrpc.Message) {
	sendNotification(rw.w, rw.sse, &rw.mu, &rw.finished, rw.start, m)
}

func (rw *statelessWriter) keepAlive(every time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		rw.mu.Lock()
		if !rw.finished && rw.started {
			_, _ = io.WriteString(rw.w, ": keep-alive\n\n")
			_ = http.NewResponseController(rw.w).Flush()
		}
		rw.mu.Unlock()
	}
}

func (rw *statelessWriter) finish(reply []byte) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.finished = true
	// Cancelled before anything was sent: the client has gone.
	finishReply(rw.w, rw.started, reply, http.StatusNoContent)
}
