package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/internal/connlimit"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// MCPOptions configure the MCP endpoint; nil means all defaults.
type MCPOptions struct {
	// MaxBodyBytes caps a POST body (default 4 MiB); more gets 413.
	MaxBodyBytes int64
	// KeepAlive is the interval of SSE comment lines on an idle GET stream
	// (default 20s), so proxies and clients see the stream alive.
	KeepAlive time.Duration
	// Logger records protocol refusals. The zero value logs nothing.
	Logger zerolog.Logger
	// Streams, when set, caps the long-lived requests: each session GET
	// stream and subscriptions/listen stream takes a slot while open, and
	// one over the cap is refused with 503.
	Streams *connlimit.Slots
}

// streamBacklog bounds the server-initiated messages kept for a session
// whose GET stream is not open yet.
const streamBacklog = 256

// NewMCPHandler returns the streamable HTTP endpoint serving srv: POST
// carries JSON-RPC bodies, GET opens the session's stream of
// server-initiated messages, DELETE ends the session. Mount it behind Guard.
func NewMCPHandler(srv *mcpserver.Server, opts *MCPOptions) http.Handler {
	h := &mcpHandler{srv: srv, maxBody: 4 << 20, keepAlive: 20 * time.Second, streams: map[string]*stream{}}
	if opts != nil {
		if opts.MaxBodyBytes > 0 {
			h.maxBody = opts.MaxBodyBytes
		}
		if opts.KeepAlive > 0 {
			h.keepAlive = opts.KeepAlive
		}
		h.log = opts.Logger
		h.streamSlots = opts.Streams
	}
	h.beats = newKeepAlives(h.keepAlive)
	return h
}

type mcpHandler struct {
	srv       *mcpserver.Server
	maxBody   int64
	keepAlive time.Duration
	beats     *keepAlives // the POSTs' keep-alive comments
	log       zerolog.Logger
	// streamSlots caps the open streams; nil: no cap here.
	streamSlots *connlimit.Slots

	mu      sync.Mutex
	streams map[string]*stream
}

func (h *mcpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, fmt.Sprintf("method %s is not served here; use POST for messages, GET for the event stream, DELETE to end a session", r.Method), http.StatusMethodNotAllowed)
	}
}

// writeError answers with an HTTP status and a JSON-RPC error body, so a
// client reading either one learns what went wrong.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code int, format string, args ...any) {
	body, _ := jsonrpc.Encode(jsonrpc.NewError(id, jsonrpc.Errorf(code, format, args...)))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	// Declared, so that an answer over net/http's 2 KiB buffer goes out
	// length-delimited rather than chunked.
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// accepts reports which answer types an Accept header allows. No header
// means JSON only.
func accepts(r *http.Request) (jsonOK, sseOK, any bool) {
	vals := r.Header[hdrAccept]
	if len(vals) == 0 {
		return true, false, true
	}
	for _, v := range vals {
		for more := true; more; {
			var part string
			part, v, more = strings.Cut(v, ",")
			mt, _, _ := strings.Cut(part, ";")
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream":
				sseOK = true
			case "*/*":
				jsonOK = true
			}
		}
	}
	return jsonOK, sseOK, jsonOK || sseOK
}

// jsonBody reports whether a Content-Type names application/json, with
// any parameters: the usual spelling without parsing it.
func jsonBody(ct string) bool {
	if ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

func (h *mcpHandler) post(w http.ResponseWriter, r *http.Request) {
	if !jsonBody(header(r.Header, hdrContentType)) {
		http.Error(w, "unsupported media type: POST a JSON-RPC body with Content-Type: application/json", http.StatusUnsupportedMediaType)
		return
	}
	_, sseOK, acceptable := accepts(r)
	if !acceptable {
		http.Error(w, "not acceptable: send Accept: application/json, text/event-stream", http.StatusNotAcceptable)
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	msgs, batch, derr := jsonrpc.Decode(body)
	if derr != nil {
		b, _ := jsonrpc.Encode(jsonrpc.NewError(nil, derr))
		writeJSON(w, http.StatusBadRequest, b)
		return
	}
	if isStateless(r, msgs, batch) {
		h.serveStateless(w, r, msgs[0], sseOK)
		return
	}
	ss, created, ok := h.session(w, r, msgs, batch)
	if !ok {
		return
	}
	if !sseOK {
		r = r.WithContext(mcpserver.WithoutStream(r.Context())) // no elicitation can reach this client
	}
	rw := &replyWriter{w: w, sse: sseOK}
	stopKeepAlive := h.beats.start(rw)
	defer stopKeepAlive() // (again, should Answer panic: no comment after the handler)
	reply := ss.Answer(r.Context(), msgs, batch, rw.notify)
	defer reply.Release()
	stopKeepAlive()
	if created && !reply.Succeeded() {
		w.Header().Del(mcp.HeaderSessionID)
		ss.Close()
	}
	rw.finishAnswer(reply)
}

// readBody reads a POST's body within the size limit; ok is false when it
// answered the refusal itself (413 over the limit, 400 a broken read).
func (h *mcpHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.ContentLength > h.maxBody {
		http.Error(w, fmt.Sprintf("request body too large: the limit is %d bytes", h.maxBody), http.StatusRequestEntityTooLarge)
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("request body too large: the limit is %d bytes", h.maxBody), http.StatusRequestEntityTooLarge)
			return nil, false
		}
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

// session finds the session a 2025-era POST belongs to (its
// Mcp-Session-Id), or starts one for an initialize (created). ok is false
// when it answered the request itself: an unknown session or protocol
// version, a ping or an unknown method without a session, or anything
// else sent before initialize.
func (h *mcpHandler) session(w http.ResponseWriter, r *http.Request, msgs []*jsonrpc.Message, batch bool) (ss *mcpserver.Session, created, ok bool) {
	if sid := header(r.Header, hdrSessionID); sid != "" {
		if ss = h.srv.Session(sid); ss == nil {
			writeError(w, http.StatusNotFound, nil, jsonrpc.CodeInvalidRequest, "session %s is unknown or has ended; send initialize without Mcp-Session-Id to start a new one", sid)
			return nil, false, false
		}
		if v := header(r.Header, hdrProtocolVersion); v != "" && !mcp.IsSupported(v) {
			writeError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, "unsupported MCP-Protocol-Version %q; supported: %s", v, strings.Join(mcp.Supported(), ", "))
			return nil, false, false
		}
		return ss, false, true
	}
	var first *jsonrpc.Message
	if !batch {
		first = msgs[0]
	}
	switch {
	case first != nil && first.Kind() == jsonrpc.KindRequest && first.Method == mcp.MethodInitialize:
		ss = h.newSession()
		w.Header().Set(mcp.HeaderSessionID, ss.ID())
		return ss, true, true
	case first != nil && first.Kind() == jsonrpc.KindRequest && first.Method == mcp.MethodPing:
		// Liveness needs no session.
		b, _ := jsonrpc.Encode(&jsonrpc.Message{ID: first.ID, Result: json.RawMessage(`{}`)})
		writeJSON(w, http.StatusOK, b)
	case first != nil && first.Kind() == jsonrpc.KindRequest && !mcp.Answers(mcp.SessionEra, first.Method):
		// An unknown method (such as a newer revision's probe) is told
		// so at once, so the client can fall back to initialize.
		b, _ := jsonrpc.Encode(jsonrpc.NewError(first.ID, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %q", first.Method)))
		writeJSON(w, http.StatusOK, b)
	default:
		var id json.RawMessage
		if first != nil {
			id = first.ID
		}
		writeError(w, http.StatusBadRequest, id, jsonrpc.CodeInvalidRequest, "missing Mcp-Session-Id header: send initialize first and echo the session id it returns")
	}
	return nil, false, false
}

// replyWriter answers one POST: as JSON, or as an SSE stream once the
// request emits a notification and the client accepts SSE.
type replyWriter struct {
	w   http.ResponseWriter
	sse bool

	mu       sync.Mutex
	started  bool
	finished bool
	quiet    bool // keep-alives stopped (keepAlive)
}

func writeEvent(w io.Writer, data []byte) error {
	_, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", data)
	return err
}

func (rw *replyWriter) notify(m *jsonrpc.Message) {
	// a JSON-only client gets the response alone
	sendNotification(rw.w, rw.sse, &rw.mu, &rw.finished, rw.startLocked, m)
}

// finishAnswer ends the answer as finishReply does, writing the reply
// from the results it holds rather than from one more copy of them.
func (rw *replyWriter) finishAnswer(reply *mcpserver.Reply) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.finished = true
	w := rw.w
	switch {
	case rw.started:
		if !reply.Empty() {
			_, _ = io.WriteString(w, "event: message\ndata: ")
			_, _ = reply.WriteTo(w)
			_, _ = io.WriteString(w, "\n\n")
		}
	case reply.Empty():
		w.WriteHeader(http.StatusAccepted)
	default:
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(reply.Len()))
		w.WriteHeader(http.StatusOK)
		_, _ = reply.WriteTo(w)
	}
}

// finishReply ends an answer: the last event of a stream already started,
// else the JSON body, else (no answer at all) the empty status: 202 for a
// session-era request vxd ended, 204 for a stateless one the client left.
func finishReply(w http.ResponseWriter, started bool, reply []byte, empty int) {
	switch {
	case started:
		if reply != nil {
			_ = writeEvent(w, reply)
		}
	case reply == nil:
		w.WriteHeader(empty)
	default:
		writeJSON(w, http.StatusOK, reply)
	}
}

func (h *mcpHandler) newSession() *mcpserver.Session {
	st := &stream{wake: make(chan struct{}, 1)}
	ss := h.srv.NewSession(func(m *jsonrpc.Message) {
		if b, err := jsonrpc.Encode(m); err == nil {
			st.push(b)
		}
	})
	h.mu.Lock()
	h.streams[ss.ID()] = st
	h.mu.Unlock()
	go func() {
		<-ss.Done()
		h.mu.Lock()
		delete(h.streams, ss.ID())
		h.mu.Unlock()
	}()
	return ss
}

// lookup finds a live session named by the request, answering 400 or 404
// itself when there is none.
func (h *mcpHandler) lookup(w http.ResponseWriter, r *http.Request) (*mcpserver.Session, *stream) {
	sid := r.Header.Get(mcp.HeaderSessionID)
	if sid == "" {
		writeError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest, "missing Mcp-Session-Id header")
		return nil, nil
	}
	ss := h.srv.Session(sid)
	h.mu.Lock()
	st := h.streams[sid]
	h.mu.Unlock()
	if ss == nil || st == nil {
		writeError(w, http.StatusNotFound, nil, jsonrpc.CodeInvalidRequest, "session %s is unknown or has ended", sid)
		return nil, nil
	}
	return ss, st
}

func (h *mcpHandler) delete(w http.ResponseWriter, r *http.Request) {
	ss, _ := h.lookup(w, r)
	if ss == nil {
		return
	}
	ss.Close()
	w.WriteHeader(http.StatusNoContent)
}

func (h *mcpHandler) get(w http.ResponseWriter, r *http.Request) {
	if _, sseOK, _ := accepts(r); !sseOK {
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "GET opens an event stream: send Accept: text/event-stream", http.StatusMethodNotAllowed)
		return
	}
	ss, st := h.lookup(w, r)
	if ss == nil {
		return
	}
	release, ok := h.streamSlot(w, nil)
	if !ok {
		return
	}
	defer release()
	kicked := st.attach()
	defer ss.Hold()()
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(h.keepAlive)
	defer tick.Stop()
	for {
		for _, b := range st.take() {
			if writeEvent(w, b) != nil {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-st.wake:
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case <-kicked:
			return // a newer GET took the stream over
		case <-ss.Done():
			return
		case <-r.Context().Done():
			return
		}
	}
}

// streamSlot takes a slot for a long-lived request, or answers 503
// itself (ok false) when the cap is reached.
func (h *mcpHandler) streamSlot(w http.ResponseWriter, id json.RawMessage) (release func(), ok bool) {
	if h.streamSlots == nil {
		return func() {}, true
	}
	release, err := h.streamSlots.Acquire("")
	if err != nil {
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusServiceUnavailable, id, jsonrpc.CodeInternalError, "%v", err)
		return nil, false
	}
	return release, true
}

// stream holds a session's server-initiated messages until its GET stream
// writes them; a newer GET replaces an older one.
type stream struct {
	wake chan struct{}

	mu    sync.Mutex
	queue [][]byte
	kick  chan struct{}
}

func (st *stream) push(b []byte) {
	st.mu.Lock()
	if len(st.queue) >= streamBacklog {
		st.queue = st.queue[1:]
	}
	st.queue = append(st.queue, b)
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

func (st *stream) take() [][]byte {
	st.mu.Lock()
	defer st.mu.Unlock()
	q := st.queue
	st.queue = nil
	return q
}

func (st *stream) attach() <-chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.kick != nil {
		close(st.kick)
	}
	st.kick = make(chan struct{})
	return st.kick
}
