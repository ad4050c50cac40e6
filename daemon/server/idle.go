package server

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// requests counts the authorized HTTP requests vxd is serving, for the
// idle timeout: one counts from the moment the guard lets it in, before
// any endpoint reads or decodes it, so the daemon never stops under a
// request it has received (MCP counts its own only once it dispatches
// them, and a request can wait long before that on a loaded machine).
type requests struct {
	mu       sync.Mutex
	inFlight int
	stopping bool // the idle timeout stopped the daemon: no request starts
}

// track counts each request next serves while it runs; once the daemon is
// stopping for idleness a request is refused with 503 instead of being
// cut off half-served.
func (q *requests) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q.mu.Lock()
		stopping := q.stopping
		if !stopping {
			q.inFlight++
		}
		q.mu.Unlock()
		if stopping {
			w.Header().Set("Connection", "close")
			http.Error(w, "vxd is stopping: it was idle; the next vx mcp or vxd start starts it again", http.StatusServiceUnavailable)
			return
		}
		defer func() {
			q.mu.Lock()
			q.inFlight--
			q.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// idle ends the daemon after IdleTimeout with no session and no request.
// One timer, re-armed from the last activity: nothing polls.
func (d *daemon) idle(ctx context.Context) {
	if d.opts.IdleTimeout < 0 {
		return
	}
	t := time.NewTimer(d.opts.IdleTimeout)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		quiet, stop := d.quiet()
		if stop {
			d.log.Info().Dur("idle", quiet).Msg("idle timeout: stopping")
			d.cancel()
			return
		}
		next := d.opts.IdleTimeout - quiet
		if next < time.Second {
			next = d.opts.IdleTimeout
		}
		t.Reset(next)
	}
}

// quiet is how long the daemon has had no session, request, or feed
// subscriber, and whether that is the idle timeout. It decides under the
// requests' lock, and a stop it decides lets no request start after.
func (d *daemon) quiet() (time.Duration, bool) {
	d.requests.mu.Lock()
	defer d.requests.mu.Unlock()
	st := d.mcp.Stats()
	last := d.started
	for _, at := range []time.Time{st.LastActivity, d.feed.LastActivity()} {
		if at.After(last) {
			last = at
		}
	}
	quiet := time.Since(last)
	busy := st.Sessions > 0 || st.InFlight > 0 || d.feed.Clients() > 0 || d.requests.inFlight > 0
	if busy || quiet < d.opts.IdleTimeout {
		return quiet, false
	}
	d.requests.stopping = true
	return quiet, true
}
