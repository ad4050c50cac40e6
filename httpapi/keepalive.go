package httpapi

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// keepAlives sends the SSE keep-alive comments of every session-era POST
// whose answer is being computed, from one timer that is armed only while
// such a POST runs. A timer per POST (started, then stopped a few hundred
// microseconds later by nearly every request) put a new earliest timer on
// the runtime's heap on each warm call, which woke another thread to
// watch it.
type keepAlives struct {
	every time.Duration

	mu    sync.Mutex
	due   map[*replyWriter]time.Time // when each running POST's next comment is due
	timer *time.Timer
	armed bool
}

func newKeepAlives(every time.Duration) *keepAlives {
	return &keepAlives{every: every, due: map[*replyWriter]time.Time{}}
}

// start sends rw a comment every interval until stop is called; once stop
// returns no comment is written.
func (k *keepAlives) start(rw *replyWriter) (stop func()) {
	if !rw.sse || k.every <= 0 {
		return func() {}
	}
	k.mu.Lock()
	k.due[rw] = time.Now().Add(k.every)
	if !k.armed {
		k.armed = true
		if k.timer == nil {
			k.timer = time.AfterFunc(k.every, k.fire)
		} else {
			k.timer.Reset(k.every)
		}
	}
	k.mu.Unlock()
	return func() {
		k.mu.Lock()
		delete(k.due, rw)
		k.mu.Unlock()
		rw.mu.Lock()
		rw.quiet = true
		rw.mu.Unlock()
	}
}

// fire sends the comments due and arms the timer for the next one, or
// leaves it unarmed when no POST is running.
func (k *keepAlives) fire() {
	now := time.Now()
	var beat []*replyWriter
	k.mu.Lock()
	var next time.Time
	for rw, at := range k.due {
		if !at.After(now) {
			beat = append(beat, rw)
			at = now.Add(k.every)
			k.due[rw] = at
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	if next.IsZero() {
		k.armed = false
	} else {
		k.timer.Reset(next.Sub(now))
	}
	k.mu.Unlock()
	for _, rw := range beat {
		rw.beat()
	}
}

// beat writes one keep-alive comment, starting the answer's stream if the
// request has sent nothing yet, unless the answer is done.
func (rw *replyWriter) beat() {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.finished || rw.quiet {
		return
	}
	rw.startLocked()
	_, _ = io.WriteString(rw.w, ": keep-alive\n\n")
	_ = http.NewResponseController(rw.w).Flush()
}
