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
	// skipping marks the files whose line under way was dropped as too
	// long (maxEventLine): read up to its end and past.
	skipping map[string]bool
	buf      []byte // the last read's (read)
}

// tailEvents watches eventsDir; stale files of an earlier daemon are removed.
func (d *daemon) tailEvents(w *fsnotify.Watcher) (*tailer, error) {
	dir := eventsDir(d.root)
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	t := newTailer(dir, d.feed)
	return t, w.Add(dir)
}

// newTailer is a tailer of the event files in dir, publishing to feed.
func newTailer(dir string, feed *liveFeed) *tailer {
	return &tailer{dir: dir, feed: feed, offsets: map[string]int64{}, partial: map[string][]byte{}}
}

// handle reads what a run appended since the last event, a bounded
// piece at a time.
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
	for t.readSome(f, ev.Name) {
	}
}

// readSome reads what f holds past its offset, at most maxEventLine bytes
// with the line begun before, publishes its whole lines, and reports
// whether there is more to read.
func (t *tailer) readSome(f *os.File, name string) bool {
	off, partial := t.offsets[name], t.partial[name]
	b, shared, more, err := t.read(f, off, partial)
	if err != nil {
		return false
	}
	t.offsets[name] = off + int64(len(b)-len(partial))
	if t.skipping[name] {
		// The rest of a line dropped as too long.
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return more
		}
		b = b[i+1:]
		delete(t.skipping, name)
	}
	id := strings.TrimSuffix(filepath.Base(name), ".jsonl")
	b, finished := t.publishLines(id, b)
	t.keepPartial(name, b, shared)
	if finished {
		os.Remove(name)
		delete(t.offsets, name)
		delete(t.partial, name)
		delete(t.skipping, name)
		return false
	}
	return more
}

// publishLines publishes (or keeps, liveFeed.keepLine) each whole line of
// b; it answers the rest, a line not yet ended, and whether one was the
// run's end.
func (t *tailer) publishLines(id string, b []byte) (rest []byte, finished bool) {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return b, finished
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
}

// keepPartial keeps b, a line not yet ended, for the next read: copied
// out of the shared buffer, which the next read reuses (or drops when one
// line made it large); dropped, and the rest of it skipped, once it is
// longer than maxEventLine.
func (t *tailer) keepPartial(name string, b []byte, shared bool) {
	switch {
	case len(b) > maxEventLine:
		if t.skipping == nil {
			t.skipping = map[string]bool{}
		}
		t.skipping[name] = true
		b = nil
	case shared:
		b = append([]byte(nil), b...)
	}
	t.partial[name] = b
	if cap(t.buf) > maxReadBuffer {
		t.buf = nil
	}
}

// maxReadBuffer is the largest read buffer the tailer keeps for its next
// read: a run's end at 10,000 tasks (2 MB) is read into a buffer of its
// own, left to the collector.
const maxReadBuffer = 1 << 20

// maxEventLine bounds a line of a run's event file: a longer one is
// dropped (its event not published), and the tailer never holds more than
// this and a byte of a file at once. A run's end carries the summary of
// each task, about 200 bytes a task: 2 MB at 10,000 tasks. A variable for
// the tests.
var maxEventLine = 64 << 20

// read answers partial followed by what f holds past off, up to
// maxEventLine+1 bytes in all, and whether f holds more. With no
// partial line it reads into the tailer's buffer, made to measure when it
// is too small (shared: nothing in it is kept past the handling of its
// lines, the runs under way copy what they keep, liveRun.keep), so one
// buffer serves every read, without the copies of one grown as it reads
// (io.ReadAll). A partial line grows in a buffer of its own, by doubling:
// a long line that arrives in many pieces is read in linear time.
func (t *tailer) read(f *os.File, off int64, partial []byte) (b []byte, shared, more bool, err error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, false, false, err
	}
	left := max(fi.Size()-off, 0)
	n := int(min(left, int64(maxEventLine+1-len(partial))))
	more = left > int64(n)
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
		return nil, false, false, err
	}
	return b[:len(partial)+got], shared, more && got == n, nil
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
