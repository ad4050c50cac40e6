package runevents_test

import (
	"bufio"
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

func readEvents(t *testing.T, path string) []wire.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []wire.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e wire.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("a line that is not one event: %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
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
	if got := readEvents(t, path); len(got) != 1 || got[0].Type != wire.EventRunStarted {
		t.Fatalf("the run's start is not written at once: %+v", got)
	}
	for i := 0; i < 500; i++ {
		write(wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: fmt.Sprintf("t%03d", i)})
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(readEvents(t, path)) != 501 {
		if time.Now().After(deadline) {
			t.Fatalf("task events not flushed: %d lines", len(readEvents(t, path)))
		}
		time.Sleep(5 * time.Millisecond)
	}
	write(wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: "last"})
	closeFn()
	write(wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: "after close"})
	got := readEvents(t, path)
	if len(got) != 502 || got[501].TaskID != "last" {
		t.Fatalf("after close: %d events, last %+v", len(got), got[len(got)-1])
	}
	for i := 1; i <= 500; i++ {
		if want := fmt.Sprintf("t%03d", i-1); got[i].TaskID != want {
			t.Fatalf("event %d is %s, want %s", i, got[i].TaskID, want)
		}
	}
}
