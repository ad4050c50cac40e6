package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/internal/connlimit"
)

// Bounds of vxd's HTTP server; docs/vxd.md ("HTTP limits") lists them.
const (
	// maxConns is the most connections served at once. When all are
	// taken, a new client takes the slot of the connection idle longest;
	// with none idle it waits in the kernel's queue until one closes.
	maxConns = 128
	// maxStreams is the most long-lived requests open at once: listen
	// streams, session GET streams and /events feeds together. The
	// maxConns-maxStreams connections they can never take serve /status
	// and tool calls whatever streams clients hold.
	maxStreams = 64
	// headerTimeout bounds reading a request's header.
	headerTimeout = 10 * time.Second
	// bodyTimeout bounds reading a whole request, header and body. Once
	// an authorized request's body is read, its handler may run (and
	// stream) as long as it needs.
	bodyTimeout = 30 * time.Second
	// idleTimeout closes a kept-alive connection with no request.
	idleTimeout = 60 * time.Second
	// maxHeaderBytes caps a request's header (431 beyond it).
	maxHeaderBytes = 64 << 10
)

// newHTTPServer returns vxd's server with every timeout set, telling ln
// which connections are idle.
func newHTTPServer(ctx context.Context, h http.Handler, ln *connlimit.Listener, log zerolog.Logger) *http.Server {
	return &http.Server{
		ConnState:         ln.ConnState,
		Handler:           h,
		ReadHeaderTimeout: headerTimeout,
		ReadTimeout:       bodyTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          newErrorLog(log),
	}
}

// liftReadDeadline lets an authorized request outlive BodyTimeout once
// its body is read: a long runTasks, a GET event stream, the /events
// websocket. (With the deadline left in place, net/http's read behind a
// handler would fail at it and cancel the request's context.)
func liftReadDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
			_ = rc.SetReadDeadline(time.Time{})
		} else {
			r.Body = &liftOnEOF{ReadCloser: r.Body, rc: rc}
		}
		next.ServeHTTP(w, r)
	})
}

type liftOnEOF struct {
	io.ReadCloser
	rc   *http.ResponseController
	once sync.Once
}

func (b *liftOnEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(func() { _ = b.rc.SetReadDeadline(time.Time{}) })
	}
	return n, err
}
