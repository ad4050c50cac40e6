package server

import (
	"bytes"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vzn/vx/protocol/wire"
)

// TestOverlongEventLineIsDropped: a line of a run's event file longer than
// the bound (a writer gone wrong, or a file written there by hand) is
// never held whole: the tailer drops it as it grows, skips to its end,
// and publishes the run's events after it. A file appended in one go far
// past the bound is read a bounded piece at a time.
func TestOverlongEventLineIsDropped(t *testing.T) {
	defer func(old int) { maxEventLine = old }(maxEventLine)
	maxEventLine = 4 << 10
	f, tl, path, fh := tailedRunFile(t)
	ch, cancel := f.Subscribe()
	defer cancel()
	event := func(e wire.Event) []byte {
		e.RunID, e.Time = "r1", time.Now().UTC()
		line, err := e.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		return append(line, '\n')
	}
	write := func(b []byte) {
		t.Helper()
		if _, err := fh.Write(b); err != nil {
			t.Fatal(err)
		}
		tl.handle(fsnotify.Event{Name: path, Op: fsnotify.Write})
		if n := len(tl.partial[path]); n > maxEventLine+1 {
			t.Fatalf("the tailer holds a partial line of %d bytes; the bound is %d", n, maxEventLine)
		}
	}
	write(event(wire.Event{Type: wire.EventRunStarted, Command: "vx run build"}))
	junk := bytes.Repeat([]byte("x"), 3<<10)
	for range 10 { // 30 KiB of one line, in pieces
		write(junk)
	}
	write([]byte("\n"))
	// Past the bound in one write: a long line, then events.
	var big []byte
	big = append(big, bytes.Repeat([]byte("y"), 40<<10)...)
	big = append(big, '\n')
	big = append(big, event(wire.Event{Type: wire.EventTaskStarted, TaskID: "a#build"})...)
	big = append(big, event(wire.Event{Type: wire.EventRunFinished, Status: wire.StatusPassed})...)
	write(big)
	var got []string
	for e := range 3 {
		select {
		case ev := <-ch:
			got = append(got, string(ev.Type))
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d never published; got %q", e, got)
		}
	}
	want := []string{string(wire.EventRunStarted), string(wire.EventTaskStarted), string(wire.EventRunFinished)}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("published %q; want %q", got, want)
		}
	}
	if len(tl.partial) != 0 {
		t.Errorf("after the run's end the tailer keeps %d partial lines", len(tl.partial))
	}
}
