package server

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
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
	b, err := readAfter(f, off, partial)
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
	t.partial[ev.Name] = b
	if finished {
		os.Remove(ev.Name)
		delete(t.offsets, ev.Name)
		delete(t.partial, ev.Name)
	}
}

// readAfter answers partial followed by what f holds past off, in one
// buffer of its own made to measure: the feed keeps a shell run's task
// lines in place in it (liveRuns.noteLine), so it is never written again,
// and a run of 10,000 hits (5 MB) is read without the copies of a buffer
// grown as it reads.
func readAfter(f *os.File, off int64, partial []byte) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	n := max(fi.Size()-off, 0)
	b := make([]byte, len(partial)+int(n))
	copy(b, partial)
	got, err := f.ReadAt(b[len(partial):], off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return b[:len(partial)+got], nil
}

// decodeFeedLine decodes one line of a run's event file. A run's end is
// decoded without its summary, which fill decodes when a subscriber will
// see it (liveFeed.publish): at 10,000 tasks it was most of what vxd spent
// on a run it only tails. A summary that does not decode then leaves the
// run's end without one: the end still reaches the feed.
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
