package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/vzn/vx/protocol/wire"
)

// Feed fans run, task, model and session events out to subscribers. A
// subscriber that cannot keep up is dropped; publishing never blocks.
type Feed struct {
	mu   sync.Mutex
	subs map[chan wire.Event]struct{}
	last time.Time
	// Tap, when set before the feed is used, sees every event first (the
	// MCP server's resource updates); it must not block.
	Tap func(wire.Event)
}

// NewFeed returns an empty feed.
func NewFeed() *Feed { return &Feed{subs: map[chan wire.Event]struct{}{}} }

// Publish sends e to every subscriber without waiting.
func (f *Feed) Publish(e wire.Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if f.Tap != nil {
		f.Tap(e)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- e:
		default:
			delete(f.subs, ch)
			close(ch)
		}
	}
}

// Subscribe returns a channel of events; it is closed when the subscriber
// is dropped or cancel is called.
func (f *Feed) Subscribe() (<-chan wire.Event, func()) {
	ch := make(chan wire.Event, 256)
	f.mu.Lock()
	f.subs[ch] = struct{}{}
	f.last = time.Now()
	f.mu.Unlock()
	return ch, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.subs[ch]; ok {
			delete(f.subs, ch)
			close(ch)
		}
		f.last = time.Now()
	}
}

// Clients counts subscribers.
func (f *Feed) Clients() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// LastActivity is when a subscriber last came or went.
func (f *Feed) LastActivity() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (d *daemon) mountLive(mux *http.ServeMux) {
	mux.HandleFunc("GET /events", d.handleEvents)
}

// handleEvents streams the feed over a websocket as JSON messages.
func (d *daemon) handleEvents(w http.ResponseWriter, r *http.Request) {
	// The guard already checked Host, Origin (loopback only) and the token.
	// Subscribe before the handshake so no event falls in between.
	ch, cancel := d.feed.Subscribe()
	defer cancel()
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := c.CloseRead(r.Context())
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-ch:
			if !ok {
				c.Close(websocket.StatusPolicyViolation, "too slow: events were dropped")
				return
			}
			wctx, stop := contextWithTimeout(ctx, 5*time.Second)
			err := wsjson.Write(wctx, c, e)
			stop()
			if err != nil {
				return
			}
		}
	}
}

func contextWithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}
