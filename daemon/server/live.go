package server

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/vzn/vx/protocol/wire"
)

// liveFeed fans run, task, model and session events out to subscribers. A
// subscriber that cannot keep up is dropped; publishing never blocks.
type liveFeed struct {
	mu sync.Mutex
	// subs maps each subscriber to when it fell behind (more than half
	// its buffer queued; zero while it keeps up), for PublishPaced.
	subs map[chan wire.Event]time.Time
	last time.Time
	// live keeps the events of the runs under way for new subscribers.
	live liveRuns
	// Tap, when set before the feed is used, sees every event first (the
	// MCP server's resource updates), a shell run's run.finished without
	// its summary (publish); it must not block.
	Tap func(wire.Event)
	// Following, when set with Tap, reports whether the Tap would do
	// anything with a task's event (an MCP client follows a resource):
	// when it would not and no subscriber listens, a shell run's task
	// events are kept undecoded (keepLine).
	Following func() bool
}

// newLiveFeed returns an empty feed.
func newLiveFeed() *liveFeed { return &liveFeed{subs: map[chan wire.Event]time.Time{}} }

// Publish sends e to every subscriber without waiting.
func (f *liveFeed) Publish(e wire.Event) { f.publish(e, nil, nil) }

// publish is Publish of e completed by fill (nil: complete) when, and only
// when, a subscriber will see it: a shell run's summary (10,000 rows at
// 10,000 tasks) is decoded for a page that shows it, never for none. The
// Tap and the events kept for a later subscriber (a run's summary is not
// kept: the run is over) see e as it came. line is e as a shell run's
// event file has it, ended by its newline (nil for an event of vxd's
// own), which the runs under way keep (liveRuns.noteLine).
func (f *liveFeed) publish(e wire.Event, fill func(*wire.Event), line []byte) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if f.Tap != nil {
		f.Tap(e)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if fill != nil && len(f.subs) > 0 {
		fill(&e)
	}
	f.live.noteLine(e, line)
	for ch := range f.subs {
		select {
		case ch <- e:
		default:
			delete(f.subs, ch)
			close(ch)
		}
	}
}

// paceLimit is how long PublishPaced waits for one subscriber that fell
// behind before it stops waiting for it (and Publish drops it when full).
const paceLimit = time.Second

// PublishPaced publishes e once every subscriber that is keeping up has
// room for it. Events read back from a shell run's event file arrive in a
// burst far faster than a live run makes them (a cached run of 1,000 tasks
// is 2,000 events at once); a client that reads must not be dropped for a
// burst. A subscriber still behind after paceLimit is waited for no more,
// so a stalled client costs the feed one second and is then dropped.
func (f *liveFeed) PublishPaced(e wire.Event) { f.publishPaced(e, nil, nil) }

// publishPaced is PublishPaced of e completed by fill, from line (publish).
func (f *liveFeed) publishPaced(e wire.Event, fill func(*wire.Event), line []byte) {
	for f.waitFor(time.Now()) {
		time.Sleep(2 * time.Millisecond)
	}
	f.publish(e, fill, line)
}

// keepLine keeps line, a task event of the shell run id's event file
// ended by its newline, for a later subscriber without decoding it, when
// nothing would see it now: no subscriber, and a Tap that would do
// nothing with it (Following).
// False when the line must be published (decoded) instead.
func (f *liveFeed) keepLine(id string, line []byte) bool {
	if !bytes.HasPrefix(line, taskStartedLine) && !bytes.HasPrefix(line, taskFinishedLine) {
		return false
	}
	if f.Tap != nil && (f.Following == nil || f.Following()) {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.subs) > 0 {
		return false
	}
	f.live.noteLine(wire.Event{Type: wire.EventTaskStarted, RunID: id}, line)
	return true
}

// taskStartedLine and taskFinishedLine are how a task's events begin in a
// run's event file (wire.Event's AppendJSON writes the type first).
var (
	taskStartedLine  = []byte(`{"type":"` + wire.EventTaskStarted + `"`)
	taskFinishedLine = []byte(`{"type":"` + wire.EventTaskFinished + `"`)
)

// waitFor reports whether a subscriber that fell behind less than
// paceLimit ago has more than half its buffer queued.
func (f *liveFeed) waitFor(now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	wait := false
	for ch, since := range f.subs {
		switch {
		case len(ch) <= cap(ch)/2:
			f.subs[ch] = time.Time{}
		case since.IsZero():
			f.subs[ch] = now
			wait = true
		case now.Sub(since) < paceLimit:
			wait = true
		}
	}
	return wait
}

// Subscribe returns a channel of events; it is closed when the subscriber
// is dropped or cancel is called.
func (f *liveFeed) Subscribe() (<-chan wire.Event, func()) {
	_, ch, cancel := f.subscribe(false)
	return ch, cancel
}

// SubscribeLive is Subscribe that also returns the events so far of the
// runs under way, which come before every event on the channel. The
// channel has room for as many more events as the replay holds: the
// subscriber writes the replay out before it reads the channel, and the
// runs go on meanwhile (bounded by maxLiveEvents).
func (f *liveFeed) SubscribeLive() ([]wire.Event, <-chan wire.Event, func()) {
	return f.subscribe(true)
}

func (f *liveFeed) subscribe(live bool) ([]wire.Event, <-chan wire.Event, func()) {
	f.mu.Lock()
	var replay []wire.Event
	if live {
		replay = f.live.replay()
	}
	ch := make(chan wire.Event, 256+len(replay))
	f.subs[ch] = time.Time{}
	f.last = time.Now()
	f.mu.Unlock()
	return replay, ch, func() {
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
func (f *liveFeed) Clients() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// LastActivity is when a subscriber last came or went.
func (f *liveFeed) LastActivity() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// handleEvents streams the feed over a websocket as JSON messages.
func (d *daemon) handleEvents(w http.ResponseWriter, r *http.Request) {
	// The guard already checked Host, Origin (loopback only) and the token.
	release, err := d.streams.Acquire("")
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer release()
	// Subscribe before the handshake so no event falls in between.
	replay, ch, cancel := d.feed.SubscribeLive()
	defer cancel()
	replay = d.liveOnly(r.Context(), replay)
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx := c.CloseRead(r.Context())
	for _, e := range replay {
		if writeEvent(ctx, c, e) != nil {
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-ch:
			if !ok {
				c.Close(websocket.StatusPolicyViolation, "too slow: events were dropped")
				return
			}
			if writeEvent(ctx, c, e) != nil {
				return
			}
		}
	}
}

// writeEvent sends one event, giving up on a client that takes over 5 s.
func writeEvent(ctx context.Context, c *websocket.Conn, e wire.Event) error {
	wctx, stop := contextWithTimeout(ctx, 5*time.Second)
	defer stop()
	return wsjson.Write(wctx, c, e)
}

func contextWithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}
