// Package runevents is the writing side of vxd's live feed for runs started
// outside the daemon (from a shell, CI, another tool): such a run appends
// its events to one JSON lines file under .vx/daemon/events, which vxd
// tails. Only files, never a socket: vx run stays offline, links no part of
// the daemon, and works the same with no daemon.
package runevents

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/vzn/vx/internal/privfile"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// Open returns a writer of this run's events when a daemon serves the
// workspace (its events directory and discovery file exist), else nil.
func Open(root string) (func(wire.Event), func()) {
	dir := layout.Events(root)
	if privfile.OwnDir(dir) != nil {
		return nil, nil // none, or not the daemon's own (a planted link)
	}
	if _, err := os.Stat(layout.Discovery(root)); err != nil {
		return nil, nil
	}
	w := &writer{dir: dir}
	return w.write, w.close
}

// flushEvery bounds how long an event waits in the buffer: a run of 1,000
// cache hits makes 2,000 events within a few milliseconds, and one write
// per event was a system call for vx and a wake-up for vxd each.
const flushEvery = 20 * time.Millisecond

// maxBuffered flushes a buffer this large at once.
const maxBuffered = 64 << 10

type writer struct {
	dir    string
	mu     sync.Mutex
	f      *os.File
	buf    []byte
	armed  bool // a flush is scheduled
	closed bool
}

func (w *writer) write(e wire.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.f == nil {
		if e.RunID == "" {
			return
		}
		var err error
		w.f, err = privfile.Open(filepath.Join(w.dir, e.RunID+".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return
		}
	}
	// Appended in place: AppendJSON encodes a task's events without
	// reflection (json.Marshal of 2,000 events was ~12 ms of a no-op run
	// of 1,000 tasks); a line that fails to encode is left out whole.
	n := len(w.buf)
	var err error
	if w.buf, err = e.AppendJSON(w.buf); err != nil {
		w.buf = w.buf[:n]
		return
	}
	w.buf = append(w.buf, '\n')
	switch {
	case e.Type == wire.EventRunStarted || e.Type == wire.EventRunFinished || len(w.buf) >= maxBuffered:
		// A run's start and end reach the feed at once.
		w.flushLocked()
	case !w.armed:
		w.armed = true
		time.AfterFunc(flushEvery, func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.armed = false
			w.flushLocked()
		})
	}
}

// flushLocked writes the buffered lines in one write: whole lines only.
func (w *writer) flushLocked() {
	if w.f != nil && !w.closed && len(w.buf) > 0 {
		_, _ = w.f.Write(w.buf)
	}
	w.buf = w.buf[:0]
}

func (w *writer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	w.closed = true
	if w.f != nil {
		w.f.Close()
	}
}
