package httpapi

import (
	"fmt"
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
