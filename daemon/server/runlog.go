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

// EventsDir is where runs started outside the daemon (from a shell, CI,
// another tool) leave their events for the daemon's live feed: one JSON
// lines file per run. Only files, never a socket: vx run stays offline and
// works the same with no daemon.
func EventsDir(root string) string { return layout.Events(root) }

// RunEventLog returns a writer of this run's events when a daemon serves
// the workspace (its events directory exists), else nil.
func RunEventLog(root string) (func(wire.Event), func()) {
	dir := EventsDir(root)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil
	}
	if _, err := os.Stat(layout.Discovery(root)); err != nil {
		return nil, nil
	}
	var (
		mu sync.Mutex
		f  *os.File
	)
	write := func(e wire.Event) {
		mu.Lock()
		defer mu.Unlock()
		if f == nil {
			if e.RunID == "" {
				return
			}
			var err error
			f, err = os.OpenFile(filepath.Join(dir, e.RunID+".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				return
			}
		}
		b, _ := json.Marshal(e)
		_, _ = f.Write(append(b, '\n'))
	}
	closeFn := func() {
		mu.Lock()
		defer mu.Unlock()
		if f != nil {
			f.Close()
		}
	}
	return write, closeFn
}

// tailer follows the events directory and publishes what runs append.
type tailer struct {
	dir     string
	feed    *Feed
	mu      sync.Mutex
	offsets map[string]int64
	partial map[string][]byte
}

// tailEvents watches EventsDir; stale files of an earlier daemon are removed.
func (d *daemon) tailEvents(w *fsnotify.Watcher) (*tailer, error) {
	dir := EventsDir(d.root)
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
	finished := false
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		var e wire.Event
		if json.Unmarshal(b[:i], &e) == nil {
			t.feed.PublishPaced(e)
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
