package server

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vzn/vx/protocol/wire"
)

// A shell run's task lines, read while nobody watches, are kept in blocks
// filled one after the other (a line torn across two writes included),
// holding no more memory than the lines take and one block; a page that
// joins then gets every event, in order, and the run's end frees them.
func TestShellRunLinesKeptInBlocks(t *testing.T) {
	dir := t.TempDir()
	f := newLiveFeed()
	tl := newTailer(dir, f)
	path := filepath.Join(dir, "r1.jsonl")
	var written []wire.Event
	var file []byte
	add := func(e wire.Event) {
		e.RunID, e.Time = "r1", time.Date(2026, 12, 6, 11, 0, 0, len(written), time.UTC)
		line, err := e.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		file = append(append(file, line...), '\n')
		written = append(written, e)
	}
	add(wire.Event{Type: wire.EventRunStarted, Command: "vx run build", Tasks: 1000})
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("pkg-%04d#build", i)
		add(wire.Event{Type: wire.EventTaskStarted, TaskID: id})
		add(wire.Event{Type: wire.EventTaskFinished, TaskID: id, Status: wire.StatusPassed, Cache: wire.CacheHit})
	}
	// Three writes, each ending inside a line.
	cuts := []int{len(file) / 3, 2*len(file)/3 + 7, len(file)}
	from := 0
	for _, to := range cuts {
		fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write(file[from:to])
		fh.Close()
		tl.handle(fsnotify.Event{Name: path, Op: fsnotify.Write})
		from = to
	}
	r := f.live.runs[0]
	lines := len(file) - bytes.IndexByte(file, '\n') - 1
	held := 0
	for _, b := range r.lines {
		held += cap(b)
	}
	if r.kept != 2000 || held > lines+lineBlock {
		t.Errorf("the run keeps %d lines in %d bytes; want 2,000 in at most %d", r.kept, held, lines+lineBlock)
	}
	replay, _, cancel := f.SubscribeLive()
	cancel()
	if !reflect.DeepEqual(replay, written) {
		t.Fatalf("a page joining got %d events; want the %d written, in order", len(replay), len(written))
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := (&wire.Event{Type: wire.EventRunFinished, RunID: "r1", Time: time.Now().UTC(), Summary: &wire.RunSummary{RunID: "r1"}}).AppendJSON(nil)
	fh.Write(append(end, '\n'))
	fh.Close()
	tl.handle(fsnotify.Event{Name: path, Op: fsnotify.Write})
	if len(f.live.runs) != 0 || f.live.events != 0 {
		t.Errorf("after the run's end %d runs and %d events are kept", len(f.live.runs), f.live.events)
	}
}

// Task lines read beside long lines of another kind (a writer's junk, an
// event vxd does not know) are kept without those: the memory a run under
// way holds is its task lines', not its reads'.
func TestKeptLinesHoldNotTheirReads(t *testing.T) {
	f, tl, path, fh := tailedRunFile(t)
	start, _ := (&wire.Event{Type: wire.EventRunStarted, RunID: "r1", Time: time.Now().UTC()}).AppendJSON(nil)
	fh.Write(append(start, '\n'))
	tl.handle(fsnotify.Event{Name: path, Op: fsnotify.Write})
	junk := append(append([]byte(`{"type":"other","time":"2026-12-06T11:00:00Z","error":"`), bytes.Repeat([]byte("x"), 256<<10)...), "\"}\n"...)
	lines := 0
	for i := 0; i < 200; i++ {
		line, _ := (&wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: fmt.Sprintf("t%03d", i), Time: time.Now().UTC()}).AppendJSON(nil)
		lines += len(line) + 1
		fh.Write(append(append(line, '\n'), junk...))
		tl.handle(fsnotify.Event{Name: path, Op: fsnotify.Write})
	}
	held := 0
	for _, b := range f.live.runs[0].lines {
		held += cap(b)
	}
	if f.live.runs[0].kept != 200 || held > lines+lineBlock {
		t.Errorf("200 task lines of %d bytes, each read with 256 KiB of another line, hold %d bytes", lines, held)
	}
}

// A run's end written in many small pieces (a reader may see any part of
// a write) reaches a subscriber whole, with its summary.
func TestRunEndInPiecesArrivesWhole(t *testing.T) {
	dir := t.TempDir()
	f := newLiveFeed()
	tl := newTailer(dir, f)
	path := filepath.Join(dir, "r1.jsonl")
	sum := &wire.RunSummary{RunID: "r1", Status: wire.StatusPassed, Tasks: []wire.TaskRow{}}
	for i := 0; i < 3000; i++ {
		sum.Tasks = append(sum.Tasks, wire.TaskRow{TaskID: fmt.Sprintf("pkg-%04d#build", i), Status: wire.StatusPassed, Cache: wire.CacheHit})
	}
	start, _ := (&wire.Event{Type: wire.EventRunStarted, RunID: "r1", Time: time.Now().UTC()}).AppendJSON(nil)
	end, err := (&wire.Event{Type: wire.EventRunFinished, RunID: "r1", Time: time.Now().UTC(), Summary: sum}).AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	file := append(append(append(start, '\n'), end...), '\n')
	ch, cancel := f.Subscribe()
	defer cancel()
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	for from := 0; from < len(file); from += 1000 {
		fh.Write(file[from:min(from+1000, len(file))])
		tl.handle(fsnotify.Event{Name: path, Op: fsnotify.Write})
	}
	if e := <-ch; e.Type != wire.EventRunStarted {
		t.Fatalf("first event %+v; want the run's start", e)
	}
	e := <-ch
	if e.Type != wire.EventRunFinished || e.Summary == nil || !reflect.DeepEqual(e.Summary.Tasks, sum.Tasks) {
		t.Fatalf("the run's end arrived as %s with %v", e.Type, e.Summary != nil)
	}
	if len(tl.partial) != 0 || len(f.live.runs) != 0 {
		t.Errorf("after the run's end the tailer keeps %d partial lines and the feed %d runs", len(tl.partial), len(f.live.runs))
	}
}

// tailedRunFile is a feed, a tailer of a new events directory publishing
// to it, and the event file of run r1 there, open for appending (closed
// when the test ends).
func tailedRunFile(t *testing.T) (*liveFeed, *tailer, string, *os.File) {
	t.Helper()
	dir := t.TempDir()
	f := newLiveFeed()
	path := filepath.Join(dir, "r1.jsonl")
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	return f, newTailer(dir, f), path, fh
}
