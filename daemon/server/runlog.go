package server

import (
	"bufio"
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
	off := t.offsets[ev.Name]
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return
	}
	b, err := io.ReadAll(bufio.NewReader(f))
	if err != nil {
		return
	}
	t.offsets[ev.Name] = off + int64(len(b))
	b = append(t.partial[ev.Name], b...)
	id := strings.TrimSuffix(filepath.Base(ev.Name), ".jsonl")
	finished := false
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		if t.feed.keepLine(id, b[:i]) {
			b = b[i+1:]
			continue
		}
		if e, fill, ok := decodeFeedLine(b[:i]); ok {
			t.feed.publishPaced(e, fill, b[:i])
			if e.Type == wire.EventRunFinished {
				finished = true
			}
		}
		b = b[i+1:]
	}
	t.partial[ev.Name] = b
	if finished {
		os.Remove(ev.Name)
		delete(t.offsets, ev.Name)
		delete(t.partial, ev.Name)
	}
}

// runFinishedLine is how the line of a run's end begins (wire.Event's
// AppendJSON, and encoding/json, write the type first).
var runFinishedLine = []byte(`{"type":"` + wire.EventRunFinished + `"`)

// decodeFeedLine decodes one line of a run's event file. A run's end is
// decoded without its summary, which fill decodes when a subscriber will
// see it (liveFeed.publish): at 10,000 tasks it was most of what vxd spent
// on a run it only tails.
func decodeFeedLine(line []byte) (wire.Event, func(*wire.Event), bool) {
	var e wire.Event
	if !bytes.HasPrefix(line, runFinishedLine) {
		return e, nil, e.DecodeLine(line) == nil
	}
	var head struct {
		wire.Event
		Summary json.RawMessage `json:"summary"`
	}
	if json.Unmarshal(line, &head) != nil {
		return e, nil, false
	}
	raw := head.Summary
	fill := func(e *wire.Event) {
		var s *wire.RunSummary
		if json.Unmarshal(raw, &s) == nil {
			e.Summary = s
		}
	}
	if len(raw) == 0 {
		fill = nil
	}
	return head.Event, fill, true
}
