// Package connlimit bounds what clients may hold of a server, for vxd and
// vx-platform alike: a Listener serving at most n connections, which
// closes an idle one when a new client waits rather than leave it in the
// kernel's queue, and Streams, the slots long-lived requests (event
// streams) take, capped in all and per key (a token), below the
// connection limit, so that a reserve of connections always serves
// ordinary requests.
package connlimit

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Listener serves at most n connections at once. When all n are taken
// and another client connects, the connection idle longest (kept alive
// between requests, or opened without a request yet) is closed to make
// room; with none idle, the new client waits until one closes.
type Listener struct {
	net.Listener
	slots chan struct{}
	done  chan struct{}
	once  sync.Once

	mu    sync.Mutex
	idle  map[*conn]idleness // connections serving no request
	idled chan struct{}      // a connection fell idle
}

// idleness is since when a connection serves no request, and whether it
// has served none yet (a new one is left newGrace to send its first).
type idleness struct {
	since time.Time
	fresh bool
}

// newGrace is how long a new connection may take to send its first
// request before a waiting client may take its slot; recheck is how often
// a waiting Accept looks again for a connection to close.
const (
	newGrace = time.Second
	recheck  = 250 * time.Millisecond
)

// NewListener bounds ln to n connections. Set the server's ConnState to
// the listener's ConnState, so that it knows which connections are idle.
func NewListener(ln net.Listener, n int) *Listener {
	return &Listener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{}), idle: map[*conn]idleness{}, idled: make(chan struct{}, 1)}
}

// Accept takes the next connection, once a slot is free for it.
func (l *Listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if !l.takeSlot() {
		c.Close()
		return nil, net.ErrClosed
	}
	lc := &conn{Conn: c, l: l}
	l.mu.Lock()
	l.idle[lc] = idleness{since: time.Now(), fresh: true} // until its first request
	l.mu.Unlock()
	return lc, nil
}

// takeSlot takes a free slot, closing an idle connection for one when
// none is free; false when the listener closed meanwhile.
func (l *Listener) takeSlot() bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	tick := time.NewTicker(recheck)
	defer tick.Stop()
	for {
		l.reclaim(time.Now())
		select {
		case l.slots <- struct{}{}:
			return true
		case <-l.done:
			return false
		case <-l.idled:
		case <-tick.C:
		}
	}
}

// reclaim closes the connection idle longest, if any: kept alive between
// requests, or new and silent for newGrace.
func (l *Listener) reclaim(now time.Time) {
	l.mu.Lock()
	var oldest *conn
	var since time.Time
	for c, st := range l.idle {
		if st.fresh && now.Sub(st.since) < newGrace {
			continue
		}
		if oldest == nil || st.since.Before(since) {
			oldest, since = c, st.since
		}
	}
	if oldest != nil {
		delete(l.idle, oldest)
	}
	l.mu.Unlock()
	if oldest != nil {
		oldest.Close()
	}
}

func (l *Listener) setIdle(c *conn, idle bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !idle {
		delete(l.idle, c)
		return
	}
	l.idle[c] = idleness{since: time.Now()}
	select {
	case l.idled <- struct{}{}:
	default:
	}
}

// ConnState is the http.Server's ConnState hook: it tells the listener
// which of its connections serve a request and which wait for one.
func (l *Listener) ConnState(c net.Conn, st http.ConnState) {
	lc, ok := c.(*conn)
	if !ok {
		return
	}
	switch st {
	case http.StateIdle:
		l.setIdle(lc, true)
	case http.StateActive, http.StateHijacked, http.StateClosed:
		l.setIdle(lc, false)
	}
}

// Close stops accepting; connections served go on until they close.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.setIdle(c, false)
		<-c.l.slots
	})
	return err
}
