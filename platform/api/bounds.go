package api

import (
	"errors"
	"net"
	"net/http"

	"github.com/vzn/vx/internal/connlimit"
	"github.com/vzn/vx/platform/tokens"
)

// Bounds of the platform's HTTP server; docs/platform.md ("Bounds")
// lists them.
const (
	// MaxConns is the most connections served at once, lowered to half
	// the process's file limit where that is less.
	MaxConns = 1024
	// MaxStreamsPerToken is the most listen streams one token holds open.
	MaxStreamsPerToken = 16
)

// connCap is MaxConns within the file limit limit (0: unknown), leaving
// half the files for the database pool, the logs and the kernel's spare.
func connCap(limit int) int {
	if limit > 0 && limit/2 < MaxConns {
		return max(limit/2, 8)
	}
	return MaxConns
}

// streamCap is the most listen streams open in all: a quarter of the
// connections, so that the rest always serve health checks, ingest and
// reads.
func streamCap(conns int) int { return max(conns/4, 1) }

// Listen bounds ln to the platform's connection cap and hooks srv's
// ConnState to it, so that idle connections give way to waiting clients.
func Listen(srv *http.Server, ln net.Listener) net.Listener {
	l := connlimit.NewListener(ln, connCap(connlimit.FileLimit()))
	srv.ConnState = l.ConnState
	return l
}

// newStreams are the listen streams' slots.
func newStreams() *connlimit.Streams {
	return &connlimit.Streams{Max: streamCap(connCap(connlimit.FileLimit())), PerKey: MaxStreamsPerToken}
}

// streamSlot takes a listen stream's slot for p's token, or answers the
// refusal itself (429 over the token's cap, 503 over the server's).
func (s *Server) streamSlot(w http.ResponseWriter, p *tokens.Principal) (release func(), ok bool) {
	release, err := s.streams.Acquire(p.TokenID)
	if err == nil {
		return release, true
	}
	status := http.StatusServiceUnavailable
	var full *connlimit.FullError
	if errors.As(err, &full) && full.PerKey {
		status = http.StatusTooManyRequests
	}
	w.Header().Set("Retry-After", "10")
	writeRPCError(w, status, err.Error())
	return nil, false
}
