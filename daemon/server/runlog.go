package server

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// eventsDir is where runs started outside the daemon (from a shell, CI,
// another tool) leave their events for the daemon's live feed: one JSON
// lines file per run. Only files, never a socket: vx run stays offline and
// works the same with no daemon.
func eventsDir(root string) string { return layout.Events(root) }

// The writing side is daemon/runevents, which vx run links without the daemon.

// tailer follows the events directory and publishes what runs append.
type tailer struct {
	dir     string
	feed    *liveFeed
	mu      sync.Mutex
	offsets map[string]int64
	partial map[string][]byte
	buf     []byte // the last read's (read)
}

// tailEvents watches eventsDir; stale files of an earlier daemon are removed.
func (d *daemon) tailEvents(w *fsnotify.Watcher) (*tailer, error) {
	dir := eventsDir(d.root)
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	t := &tailer{dir: dir, feed: d.feed, offsets: map[string]int64{}, partial: map[string][]byte{}}
	return t, w.Add(dir)
}

// handle reads what a run appended since the last event.
func (t *tailer) handle(ev fsnotify.Event) {
	if !strings.HasSuffix(ev.Name, ".jsonl") || !(ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create)) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := os.Open(ev.Name)
	if err != nil {
		return
	}
	defer f.Close()
	off, partial := t.offsets[ev.Name], t.partial[ev.Name]
	b, shared, err := t.read(f, off, partial)
	if err != nil {
		return
	}
	t.offsets[ev.Name] = off + int64(len(b)-len(partial))
	id := strings.TrimSuffix(filepath.Base(ev.Name), ".jsonl")
	finished := false
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		line := b[:i+1]
		b = b[i+1:]
		if t.feed.keepLine(id, line) {
			continue
		}
		if e, fill, ok := decodeFeedLine(line[:i]); ok {
			t.feed.publishPaced(e, fill, line)
			if e.Type == wire.EventRunFinished {
				finished = true
			}
		}
	}
	// The rest, a line not yet ended, is copied out of the shared buffer,
	// which the next read reuses (or drops when one line made it large).
	if shared {
		b = append([]byte(nil), b...)
	}
	t.partial[ev.Name] = b
	if cap(t.buf) > maxReadBuffer {
		t.buf = nil
	}
	if finished {
		os.Remove(ev.Name)
		delete(t.offsets, ev.Name)
		delete(t.partial, ev.Name)
	}
}

// maxReadBuffer is the largest read buffer the tailer keeps for its next
// read: a run's end at 10,000 tasks (2 MB) is read into a buffer of its
// own, left to the collector.
const maxReadBuffer = 1 << 20

// read answers partial followed by what f holds past off. With no
// partial line it reads into the tailer's buffer, made to measure when it
// is too small (shared: nothing in it is kept past the handling of its
// lines, the runs under way copy what they keep, liveRun.keep), so one
// buffer serves every read, without the copies of one grown as it reads
// (io.ReadAll). A partial line grows in a buffer of its own, by doubling:
// a long line that arrives in many pieces is read in linear time.
func (t *tailer) read(f *os.File, off int64, partial []byte) (b []byte, shared bool, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	n := int(max(fi.Size()-off, 0))
	if len(partial) > 0 {
		b = slices.Grow(partial, n)[:len(partial)+n]
	} else {
		if cap(t.buf) < n {
			t.buf = make([]byte, n)
		}
		b, shared = t.buf[:n], true
	}
	got, err := f.ReadAt(b[len(partial):], off)
	if err != nil && err != io.EOF {
		return nil, false, err
	}
	return b[:len(partial)+got], shared, nil
}

// decodeFeedLine decodes one line of a run's event file. A run's end is
// decoded without its summary, which fill decodes when a subscriber will
// see it (liveFeed.publish): at 10,000 tasks it was most of what vxd spent
// on a run it only tails. A summary that does not decode then leaves the
// run's end without one: the end still reaches the feed. fill reads line
// itself, so it is called (publish) before the tailer's next read.
func decodeFeedLine(line []byte) (wire.Event, func(*wire.Event), bool) {
	var e wire.Event
	raw, err := e.DecodeHead(line)
	if err != nil || raw == nil {
		return e, nil, err == nil
	}
	return e, func(e *wire.Event) {
		var s *wire.RunSummary
		if json.Unmarshal(raw, &s) == nil {
			e.Summary = s
		}
	}, true
}
