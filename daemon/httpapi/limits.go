package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// maxLogValue is the most of a request's own value (a Host, an Origin, a
// path) that one log line quotes.
const maxLogValue = 256

// clip shortens a value a client chose before it is logged or echoed.
func clip(s string) string {
	if len(s) <= maxLogValue {
		return s
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:maxLogValue], len(s))
}

// Refusal lines are rate-limited: at most refusalBurst in each
// refusalWindow; the rest are counted, and the count is logged once the
// next window opens.
const (
	refusalBurst  = 20
	refusalWindow = 10 * time.Second
)

// refusalLog hands out refusal log events within the rate limit.
type refusalLog struct {
	log zerolog.Logger

	mu      sync.Mutex
	start   time.Time
	n       int
	dropped int
}

// warn returns an event for one refusal, or nil (which logs nothing)
// past the limit.
func (rl *refusalLog) warn(l zerolog.Logger) *zerolog.Event {
	now := time.Now()
	rl.mu.Lock()
	if now.Sub(rl.start) >= refusalWindow {
		if rl.dropped > 0 {
			rl.log.Warn().Int("notLogged", rl.dropped).Dur("window", refusalWindow).Msg("refusals beyond the log's rate limit were not logged")
		}
		rl.start, rl.n, rl.dropped = now, 0, 0
	}
	rl.n++
	ok := rl.n <= refusalBurst
	if !ok {
		rl.dropped++
	}
	rl.mu.Unlock()
	if !ok {
		return nil
	}
	return l.Warn()
}

// keepAlive sends an SSE comment on the answer's stream every interval
// the request runs (starting the stream if the request has sent nothing
// yet), so a client can tell a long request from a stalled daemon. stop
// ends it before the answer is written; once stop returns no comment is
// written. It is a timer, not a goroutine: most requests end long before
// the first interval, and starting (and joining) a goroutine for each
// would wake another thread on every call.
func (rw *replyWriter) keepAlive(every time.Duration) (stop func()) {
	if !rw.sse || every <= 0 {
		return func() {}
	}
	var t *time.Timer
	tick := func() {
		rw.mu.Lock()
		defer rw.mu.Unlock()
		if rw.finished || rw.quiet {
			return
		}
		rw.startLocked()
		_, _ = io.WriteString(rw.w, ": keep-alive\n\n")
		_ = http.NewResponseController(rw.w).Flush()
		t.Reset(every)
	}
	rw.mu.Lock()
	t = time.AfterFunc(every, tick)
	rw.mu.Unlock()
	return func() {
		rw.mu.Lock()
		rw.quiet = true
		rw.mu.Unlock()
		t.Stop()
	}
}

// startLocked starts the answer's event stream once; rw.mu is held.
func (rw *replyWriter) startLocked() {
	if rw.started {
		return
	}
	rw.started = true
	h := rw.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	rw.w.WriteHeader(http.StatusOK)
}
