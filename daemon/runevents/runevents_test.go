package runevents_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/runevents"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// readEvents reads the file as vxd tails it: whole lines are events, and
// a last line not yet ended by its newline is left for the next read (a
// reader may see the file between the writer's write and the next, or, on
// Windows, part of one write); partial reports such a line.
func readEvents(t *testing.T, path string) (out []wire.Event, partial string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return out, string(b)
		}
		var e wire.Event
		if err := json.Unmarshal(b[:i], &e); err != nil {
			t.Fatalf("a line that is not one event: %q: %v", b[:i], err)
		}
		out = append(out, e)
		b = b[i+1:]
	}
}

// whole reads the events of a file whose writer has flushed or closed:
// no line may be left partial.
func whole(t *testing.T, path string) []wire.Event {
	t.Helper()
	out, partial := readEvents(t, path)
	if partial != "" {
		t.Fatalf("a line written in part: %q", partial)
	}
	return out
}

func count(t *testing.T, path string) int {
	t.Helper()
	out, _ := readEvents(t, path)
	return len(out)
}

// Buffered events reach the file whole and in order: the run's start at
// once, task events within the flush interval, everything by close, and
// nothing after it.
func TestEventsBufferedInOrder(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(layout.Events(root), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(layout.Discovery(root), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	write, closeFn := runevents.Open(root)
	if write == nil {
		t.Fatal("no writer with an events directory and a discovery file")
	}
	path := filepath.Join(layout.Events(root), "r1.jsonl")
	write(wire.Event{Type: wire.EventRunStarted, RunID: "r1"})
	if got := whole(t, path); len(got) != 1 || got[0].Type != wire.EventRunStarted {
		t.Fatalf("the run's start is not written at once: %+v", got)
	}
	for i := 0; i < 500; i++ {
		write(wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: fmt.Sprintf("t%03d", i)})
	}
	deadline := time.Now().Add(10 * time.Second)
	for count(t, path) != 501 {
		if time.Now().After(deadline) {
			t.Fatalf("task events not flushed: %d lines", count(t, path))
		}
		time.Sleep(5 * time.Millisecond)
	}
	write(wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: "last"})
	closeFn()
	write(wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: "after close"})
	got := whole(t, path)
	if len(got) != 502 || got[501].TaskID != "last" {
		t.Fatalf("after close: %d events, last %+v", len(got), got[len(got)-1])
	}
	for i := 1; i <= 500; i++ {
		if want := fmt.Sprintf("t%03d", i-1); got[i].TaskID != want {
			t.Fatalf("event %d is %s, want %s", i, got[i].TaskID, want)
		}
	}
}

// Writing a task's event allocates nothing of its own: a run of 10,000
// cache hits writes 20,000, and each one moved to the heap was garbage for
// the collector of the run they report on.
func TestWritingATaskEventAllocatesNothing(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(layout.Events(root), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(layout.Discovery(root), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	write, closeFn := runevents.Open(root)
	defer closeFn()
	write(wire.Event{Type: wire.EventRunStarted, RunID: "r1"})
	e := wire.Event{Type: wire.EventTaskFinished, Time: time.Now(), RunID: "r1", TaskID: "pkg-0001#build", Status: wire.StatusPassed, Cache: wire.CacheHit}
	if allocs := testing.AllocsPerRun(5000, func() { write(e) }); allocs != 0 {
		t.Errorf("writing a task's event made %.2f allocations; want none", allocs)
	}
}
