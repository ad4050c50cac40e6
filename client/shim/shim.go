// Package shim is the stdio side of `vx mcp`: a pump that reads
// newline-delimited JSON-RPC from an MCP client, posts each message to the
// workspace daemon's streamable HTTP endpoint, and writes every answer and
// server notification back as one line. It intercepts only what it must:
// the client's initialize (kept for replay), a lost daemon or session
// (start the daemon again, replay initialize, retry once), and lines that
// are not JSON (answered -32700 without bothering the daemon). Nothing but
// JSON-RPC lines is ever written to out.
package shim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
	"github.com/vzn/vx/protocol/wire"
)

// Dialer finds or starts the workspace daemon.
type Dialer interface {
	// Ensure returns the daemon's base URL (http://127.0.0.1:PORT) and
	// token, starting the daemon if needed; restart is true after the
	// daemon failed to answer, asking for a fresh one.
	Ensure(ctx context.Context, restart bool) (baseURL, token string, err error)
}

// Options tune Run; nil means all defaults.
type Options struct {
	// HTTPClient talks to the daemon; default: a client without timeout
	// (a tools/call may run long).
	HTTPClient *http.Client
	// Logger takes diagnostics (it must not write to out). The zero value
	// logs nothing.
	Logger zerolog.Logger
	// Grace is how long end of input waits for requests still in flight
	// before cancelling them (default 5s).
	Grace time.Duration
	// StallTimeout is how long a request may wait with nothing at all
	// from the daemon (no header, no byte, no keep-alive) before it is
	// answered with an error (default 60s). vxd sends a keep-alive on a
	// long request's stream every 20s, so a long runTasks is never cut.
	StallTimeout time.Duration
}

const (
	maxLine      = 64 << 20
	defaultStall = 60 * time.Second
)

type shim struct {
	d     Dialer
	hc    *http.Client
	fresh *http.Client // no kept-alive connections: for calls (freshClient)
	log   zerolog.Logger
	stall time.Duration

	outMu  sync.Mutex
	out    io.Writer
	outErr error
	// inputEnded: the client closed its end; an answer it can no longer
	// read afterwards (a listen stream's last result) is not a failure.
	inputEnded bool

	mu       sync.Mutex
	base     string
	token    string
	sid      string
	rev      string
	initLine []byte
	gen      int // bumps on every reconnect
	stopSSE  context.CancelFunc
	sseCtx   context.Context

	recoverMu sync.Mutex

	// cancelled holds ids the client sent notifications/cancelled for
	// (under mu).
	cancelled map[string]bool
	stateless statelessCalls // stateless requests in flight (stateless.go)
}

// Run pumps messages between in/out and the daemon until in ends or ctx is
// cancelled. On end of input it waits (up to Options.Grace) for answers in
// flight, ends the daemon session with DELETE and returns nil. It returns
// an error only when out cannot be written.
func Run(ctx context.Context, in io.Reader, out io.Writer, d Dialer, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	s := &shim{d: d, hc: opts.HTTPClient, log: opts.Logger, out: out, stall: opts.StallTimeout}
	if s.stall <= 0 {
		s.stall = defaultStall
	}
	if s.hc == nil {
		s.hc = &http.Client{}
	}
	s.fresh = freshClient(s.hc)
	grace := opts.Grace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	reqCtx, cancelReqs := context.WithCancel(ctx)
	defer cancelReqs()
	s.sseCtx = reqCtx

	lines := make(chan []byte)
	go s.readLines(reqCtx, in, lines)

	var wg sync.WaitGroup
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case line, ok := <-lines:
			if !ok {
				s.outMu.Lock()
				s.inputEnded = true
				s.outMu.Unlock()
				break loop
			}
			s.handleLine(reqCtx, &wg, line)
			if s.writeErr() != nil {
				break loop
			}
		}
	}

	s.endListens()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	timer := time.NewTimer(grace)
	select {
	case <-done:
	case <-timer.C:
		s.log.Info().Msg("input ended: cancelling requests still in flight")
	case <-ctx.Done():
	}
	timer.Stop()
	cancelReqs()
	<-done
	s.endSession(context.WithoutCancel(ctx))
	if err := s.writeErr(); !errors.Is(err, errClientGone) {
		return err
	}
	return nil
}

// readLines sends each non-blank line of in to lines, closing it when in
// ends or ctx is done.
func (s *shim) readLines(ctx context.Context, in io.Reader, lines chan<- []byte) {
	defer close(lines)
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			select {
			case lines <- line:
			case <-ctx.Done():
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.log.Warn().Err(err).Msg("reading stdin")
			}
			return
		}
	}
}

// errClientGone is a write that failed after the client closed its input:
// it has gone, and nothing is lost.
var errClientGone = errors.New("the MCP client has gone")

func (s *shim) writeErr() error {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	return s.outErr
}

// writeLine writes one JSON value as one line; concurrent writers never
// interleave.
func (s *shim) writeLine(data []byte) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		s.log.Warn().Err(err).Msg("dropping an answer that is not JSON")
		return
	}
	buf.WriteByte('\n')
	s.outMu.Lock()
	defer s.outMu.Unlock()
	if s.outErr != nil {
		return
	}
	if _, err := s.out.Write(buf.Bytes()); err != nil {
		// The client closed its input, or the end it reads answers from
		// (a closed pipe): it has gone, and nobody is left to tell.
		if s.inputEnded || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe) {
			s.log.Debug().Err(err).Msg("the client left before its last answer")
			s.outErr = errClientGone
			return
		}
		s.outErr = fmt.Errorf("writing to the MCP client: %w", err)
	}
}

func (s *shim) writeMessage(m *jsonrpc.Message) {
	if b, err := jsonrpc.Encode(m); err == nil {
		s.writeLine(b)
	}
}

// handleLine sends one client line on its way: initialize and
// notifications in order, requests concurrently.
func (s *shim) handleLine(ctx context.Context, wg *sync.WaitGroup, line []byte) {
	line = bytes.TrimSpace(line)
	msgs, batch, derr := jsonrpc.Decode(line)
	if derr != nil {
		s.writeMessage(jsonrpc.NewError(nil, derr))
		return
	}
	if s.statelessLine(ctx, wg, line, msgs, batch) {
		return
	}
	var ids []json.RawMessage
	isInit := false
	for _, m := range msgs {
		s.noteCancel(m)
		if m.Kind() == jsonrpc.KindRequest {
			ids = append(ids, m.ID)
			isInit = isInit || (!batch && m.Method == mcp.MethodInitialize)
		}
	}
	if isInit {
		s.mu.Lock()
		s.initLine = append([]byte(nil), line...)
		s.mu.Unlock()
	}
	if isInit || len(ids) == 0 {
		s.forward(ctx, line, ids, isInit)
		return
	}
	wg.Go(func() { s.forward(ctx, line, ids, false) })
}

type conn struct {
	gen                   int
	base, token, sid, rev string
}

func (s *shim) current(ctx context.Context) (conn, error) {
	s.mu.Lock()
	c := conn{s.gen, s.base, s.token, s.sid, s.rev}
	s.mu.Unlock()
	if c.base != "" {
		return c, nil
	}
	s.recoverMu.Lock()
	defer s.recoverMu.Unlock()
	s.mu.Lock()
	ready := s.base != ""
	s.mu.Unlock()
	if !ready {
		base, token, err := s.d.Ensure(ctx, false)
		if err != nil {
			return c, fmt.Errorf("starting vxd: %w", err)
		}
		s.mu.Lock()
		s.base, s.token = base, token
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return conn{s.gen, s.base, s.token, s.sid, s.rev}, nil
}

// forward posts one line and writes its answers, recovering once from a
// lost daemon or session. A request the daemon may have received is sent
// again only when it cannot change the workspace (notReplayable).
func (s *shim) forward(ctx context.Context, line []byte, ids []json.RawMessage, isInit bool) {
	for attempt := 0; ; attempt++ {
		c, err := s.current(ctx)
		if err != nil {
			s.fail(ids, err)
			return
		}
		xe := s.exchange(ctx, c, line, ids, isInit)
		if xe == nil {
			return
		}
		if xe.final || attempt > 0 || ctx.Err() != nil {
			s.fail(ids, xe.err)
			return
		}
		s.log.Info().Err(xe.err).Msg("the daemon or its session is gone: reconnecting")
		if rerr := s.recover(ctx, c.gen, !isInit); rerr != nil {
			s.fail(ids, rerr)
			return
		}
		if xe.sent && !isInit {
			if what := s.notReplayable(ctx, line); what != "" {
				s.failUnknown(ids, what, xe.err)
				return
			}
		}
	}
}

// exchange posts one line and delivers its answers; nil means done.
func (s *shim) exchange(ctx context.Context, c conn, line []byte, ids []json.RawMessage, isInit bool) *exchangeError {
	hc := s.hc
	if bytes.Contains(line, []byte(mcp.MethodToolsCall)) {
		hc = s.fresh
	}
	resp, sent, err := s.postWith(ctx, hc, c, line, !isInit)
	if err != nil {
		return &exchangeError{err: fmt.Errorf("reaching vxd: %w", err), sent: sent, final: errors.Is(err, errStalled)}
	}
	if resp.StatusCode == http.StatusNotFound && c.sid != "" && !isInit {
		resp.Body.Close()
		return &exchangeError{err: errors.New("vxd no longer knows the session")}
	}
	return s.deliver(resp, ids, isInit, c)
}

// fail answers each request id with an internal error saying why.
func (s *shim) fail(ids []json.RawMessage, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	s.log.Warn().Err(err).Msg("answering with an error")
	for _, id := range ids {
		s.writeMessage(jsonrpc.NewError(id, jsonrpc.Errorf(jsonrpc.CodeInternalError, "vx mcp: %v", err)))
	}
}

// post sends one body; sent reports whether it reached the daemon in
// full. The answer's body reports a stall (stallBody).
func (s *shim) post(ctx context.Context, c conn, body []byte, withSession bool) (resp *http.Response, sent bool, err error) {
	return s.postWith(ctx, s.hc, c, body, withSession)
}

func (s *shim) postWith(ctx context.Context, hc *http.Client, c conn, body []byte, withSession bool) (resp *http.Response, sent bool, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	st := newStallTimer(s.stall, cancel)
	var wrote atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			wrote.Store(true)
		}
	}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+wire.MCPPath, bytes.NewReader(body))
	if err != nil {
		st.stop()
		cancel(nil)
		return nil, false, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if withSession && c.sid != "" {
		req.Header.Set(mcp.HeaderSessionID, c.sid)
	}
	if withSession && c.rev != "" {
		req.Header.Set(mcp.HeaderProtocolVersion, c.rev)
	}
	resp, err = hc.Do(req)
	if err != nil {
		st.stop()
		if errors.Is(context.Cause(ctx), errStalled) {
			err = stalled(s.stall)
		}
		cancel(nil)
		return nil, wrote.Load(), err
	}
	st.alive()
	resp.Body = &stallBody{ReadCloser: resp.Body, st: st, ctx: ctx, cancel: cancel}
	return resp, true, nil
}

// deliver writes the answers in resp to out. It reports an answer lost
// on the way (the stream broke, the daemon stalled) or too large to pass
// on, so that no request waits forever.
func (s *shim) deliver(resp *http.Response, ids []json.RawMessage, isInit bool, c conn) *exchangeError {
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		s.unanswered(ids)
		return nil
	case resp.StatusCode == http.StatusOK && mt == "text/event-stream":
		answered := false
		err := readSSE(resp.Body, func(data []byte) {
			answered = answered || isResponse(data)
			s.writeLine(data)
		})
		if answered || len(ids) == 0 {
			return nil
		}
		return lostAnswer(err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxLine+1))
	if err != nil {
		return lostAnswer(err)
	}
	if len(body) > maxLine {
		return &exchangeError{err: tooLarge(), sent: true, final: true}
	}
	if resp.StatusCode == http.StatusOK && isInit {
		s.adopt(resp.Header.Get(mcp.HeaderSessionID), body, c.gen)
	}
	if resp.StatusCode == http.StatusOK {
		s.writeLine(body)
		return nil
	}
	// An HTTP refusal: pass its JSON-RPC error on when it names the
	// request, else answer each request with the status.
	if msgs, batch, derr := jsonrpc.Decode(body); derr == nil && !batch && len(ids) == 1 &&
		msgs[0].Kind() == jsonrpc.KindResponse && string(msgs[0].ID) == string(ids[0]) {
		s.writeLine(body)
		return nil
	}
	s.fail(ids, fmt.Errorf("vxd answered HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body))))
	return nil
}

// lostAnswer is an answer that stopped coming after the request arrived.
func lostAnswer(err error) *exchangeError {
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return &exchangeError{err: tooLarge(), sent: true, final: true}
	case errors.Is(err, errStalled):
		return &exchangeError{err: err, sent: true, final: true}
	case err == nil:
		err = io.ErrUnexpectedEOF
	}
	return &exchangeError{err: fmt.Errorf("reading vxd's answer: %w", err), sent: true}
}

func tooLarge() error {
	return fmt.Errorf("vxd's answer is over %d MiB, the most vx mcp passes on as one line; ask for less (a narrower filter, getFailures rather than getTaskLog)", maxLine>>20)
}

// isResponse reports whether an SSE event's data is a response (not a
// notification).
func isResponse(data []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if len(data) > 0 && data[0] == '[' {
		return true // a batch's answers
	}
	return json.Unmarshal(data, &m) == nil && m.Method == "" && len(m.ID) > 0
}

// adopt records the session an initialize answer opened and starts
// listening for its server-initiated messages.
func (s *shim) adopt(sid string, body []byte, gen int) {
	var m struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if sid == "" || json.Unmarshal(body, &m) != nil {
		return
	}
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return
	}
	s.sid, s.rev = sid, m.Result.ProtocolVersion
	if s.stopSSE != nil {
		s.stopSSE()
	}
	sseCtx, stop := context.WithCancel(s.sseCtx)
	s.stopSSE = stop
	c := conn{s.gen, s.base, s.token, s.sid, s.rev}
	s.mu.Unlock()
	go s.listen(sseCtx, c)
}

// recover gets a fresh daemon, replays the client's initialize (its answer
// swallowed) and notifications/initialized. Concurrent callers that saw
// the same generation recover once.
func (s *shim) recover(ctx context.Context, gen int, replay bool) error {
	s.recoverMu.Lock()
	defer s.recoverMu.Unlock()
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return nil // someone else already reconnected
	}
	if s.stopSSE != nil {
		s.stopSSE()
		s.stopSSE = nil
	}
	initLine := s.initLine
	s.mu.Unlock()

	base, token, err := s.d.Ensure(ctx, true)
	if err != nil {
		return fmt.Errorf("restarting vxd: %w", err)
	}
	s.mu.Lock()
	s.gen++
	s.base, s.token, s.sid, s.rev = base, token, "", ""
	c := conn{s.gen, base, token, "", ""}
	s.mu.Unlock()
	if !replay || initLine == nil {
		return nil
	}
	resp, _, err := s.post(ctx, c, initLine, false)
	if err != nil {
		return fmt.Errorf("replaying initialize: %w", err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxLine))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("replaying initialize: vxd answered HTTP %d", resp.StatusCode)
	}
	s.adopt(resp.Header.Get(mcp.HeaderSessionID), body, c.gen)
	s.mu.Lock()
	c = conn{s.gen, s.base, s.token, s.sid, s.rev}
	s.mu.Unlock()
	note, _ := jsonrpc.Encode(&jsonrpc.Message{Method: mcp.NotifyInitialized})
	if resp, _, err := s.post(ctx, c, note, true); err == nil {
		resp.Body.Close()
	}
	return nil
}

// listen holds the session's GET stream and forwards what arrives. It
// stops when the session's generation ends, when the daemon offers no
// stream, or when it cannot be reached (the next request recovers).
func (s *shim) listen(ctx context.Context, c conn) {
	for failures := 0; failures < 3 && ctx.Err() == nil; {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+wire.MCPPath, nil)
		if err != nil {
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set(mcp.HeaderSessionID, c.sid)
		req.Header.Set(mcp.HeaderProtocolVersion, c.rev)
		resp, err := s.hc.Do(req)
		if err != nil {
			return
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return
		}
		n := 0
		_ = readSSE(resp.Body, func(data []byte) { n++; s.writeLine(data) })
		resp.Body.Close()
		if n == 0 {
			failures++
		} else {
			failures = 0
		}
	}
}

// readSSE calls fn with the data of each event in r.
func readSSE(r io.Reader, fn func([]byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				fn(data)
			}
			data = nil
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(line[5:], []byte(" "))
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
	}
	if len(data) > 0 {
		fn(data)
	}
	return sc.Err()
}

// endSession tells the daemon the session is over.
func (s *shim) endSession(ctx context.Context) {
	s.mu.Lock()
	c := conn{s.gen, s.base, s.token, s.sid, s.rev}
	if s.stopSSE != nil {
		s.stopSSE()
	}
	s.mu.Unlock()
	if c.sid == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.base+wire.MCPPath, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set(mcp.HeaderSessionID, c.sid)
	if resp, err := s.hc.Do(req); err == nil {
		resp.Body.Close()
	} else {
		s.log.Debug().Err(err).Msg("ending the daemon session")
	}
}
