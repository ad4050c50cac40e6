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
	// maxConns is the most connections served at once, lowered to half
	// the process's file limit where that is less.
	maxConns = 1024
	// maxStreamsPerToken is the most listen streams one token holds open.
	maxStreamsPerToken = 16
	// maxReadsPerToken is the most reads (POST /mcp, the /v1 reads) one
	// token has in flight, waiting for heavyReads included.
	maxReadsPerToken = 64
	// heavyReads is the most tool calls computed at once (a get_run of a
	// 20,000-task run builds some 20 MiB); others wait their turn.
	heavyReads = 2
	// sharedAnswers bounds the answers held in memory at once, over all
	// requests, until written; beyond it an answer is refused as busy.
	sharedAnswers = 48 << 20
)

// connCap is maxConns within the file limit limit (0: unknown), leaving
// half the files for the database pool, the logs and the kernel's spare.
func connCap(limit int) int {
	if limit > 0 && limit/2 < maxConns {
		return max(limit/2, 8)
	}
	return maxConns
}

// streamCap is the most listen streams open in all: a quarter of the
// connections, so that the rest always serve health checks, ingest and
// reads.
func streamCap(conns int) int { return max(conns/4, 1) }

// readCap is the most reads in flight in all: half the connections, so
// that reads waiting their turn never take the ones health checks and
// pushes need.
func readCap(conns int) int { return max(conns/2, 1) }

// Listen bounds ln to the platform's connection cap and hooks srv's
// ConnState to it, so that idle connections give way to waiting clients.
func Listen(srv *http.Server, ln net.Listener) net.Listener {
	l := connlimit.NewListener(ln, connCap(connlimit.FileLimit()))
	srv.ConnState = l.ConnState
	return l
}

// newStreams are the listen streams' slots, newReads the reads'.
func newStreams() *connlimit.Slots {
	return &connlimit.Slots{Max: streamCap(connCap(connlimit.FileLimit())), PerKey: maxStreamsPerToken, What: "listen streams"}
}

func newReads() *connlimit.Slots {
	return &connlimit.Slots{Max: readCap(connCap(connlimit.FileLimit())), PerKey: maxReadsPerToken, What: "reads"}
}

// slot takes one of slots for p's token, or answers the refusal itself
// (429 over the token's cap, 503 over the server's), as a JSON-RPC error
// when rpc is set (POST /mcp), else as the /v1 routes' {"error"}.
func (s *Server) slot(w http.ResponseWriter, slots *connlimit.Slots, p *tokens.Principal, rpc bool) (release func(), ok bool) {
	release, err := slots.Acquire(p.TokenID)
	if err == nil {
		return release, true
	}
	status := http.StatusServiceUnavailable
	var full *connlimit.FullError
	if errors.As(err, &full) && full.PerKey {
		status = http.StatusTooManyRequests
	}
	w.Header().Set("Retry-After", "10")
	if rpc {
		writeRPCError(w, status, err.Error())
	} else {
		writeErr(w, status, err.Error())
	}
	return nil, false
}
