package server

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vzn/vx/protocol/wire"
)

// A shell run's task events that nobody watches are kept as its event
// file has them and decoded only for a page that joins mid-run: that page
// still gets the run's start and every task event so far, in order, and
// then the events that follow, decoded.
func TestShellRunKeptUndecodedUntilSomeoneJoins(t *testing.T) {
	dir := t.TempDir()
	f := newLiveFeed()
	following := false
	taps := 0
	f.Tap = func(e wire.Event) {
		if e.Type == wire.EventTaskFinished {
			taps++
		}
	}
	f.Following = func() bool { return following }
	tl := newTailer(dir, f)
	path := filepath.Join(dir, "r1.jsonl")
	var written []wire.Event
	appendEvents := func(evs ...wire.Event) {
		t.Helper()
		var b []byte
		for _, e := range evs {
			e.RunID, e.Time = "r1", time.Date(2026, 12, 6, 11, 0, 0, len(written), time.UTC)
			line, err := e.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			b = append(append(b, line...), '\n')
			written = append(written, e)
		}
		fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		fh.Write(b)
		fh.Close()
		tl.handle(fsnotify.Event{Name: path, Op: fsnotify.Write})
	}
	tasks := func(from, to int) []wire.Event {
		var evs []wire.Event
		for i := from; i < to; i++ {
			id := fmt.Sprintf("p%d#build", i)
			evs = append(evs, wire.Event{Type: wire.EventTaskStarted, TaskID: id, DependsOn: []string{"p0#build"}},
				wire.Event{Type: wire.EventTaskFinished, TaskID: id, Status: wire.StatusPassed, Cache: wire.CacheHit, DurationMs: 1})
		}
		return evs
	}
	appendEvents(wire.Event{Type: wire.EventRunStarted, Command: "vx run build", Tasks: 3000})
	appendEvents(tasks(0, 1000)...)

	if r := f.live.runs[0]; len(r.events) != 1 || r.kept != 2000 {
		t.Fatalf("with nobody watching the run keeps %d decoded events and %d lines; want its start alone decoded, and 2,000 lines", len(r.events), r.kept)
	}
	if taps != 0 {
		t.Errorf("the tap saw %d task events while nothing followed a resource", taps)
	}
	replay, ch, cancel := f.SubscribeLive()
	defer cancel()
	if !reflect.DeepEqual(replay, written) {
		t.Fatalf("a page joining mid-run got %d events; want the %d written, in order", len(replay), len(written))
	}

	// Watched now: published decoded, and kept for the next page too.
	following = true
	appendEvents(tasks(1000, 1010)...)
	for _, want := range written[len(written)-20:] {
		if got := <-ch; !reflect.DeepEqual(got, want) {
			t.Fatalf("the subscriber got %+v; want %+v", got, want)
		}
	}
	if taps != 10 {
		t.Errorf("the tap saw %d task ends while a resource was followed; want 10", taps)
	}
	cancel()
	following = false
	appendEvents(tasks(1010, 1020)...)
	late, _, cancel2 := f.SubscribeLive()
	defer cancel2()
	if !reflect.DeepEqual(late, written) {
		t.Fatalf("a later page got %d events; want the %d written, in order", len(late), len(written))
	}
	appendEvents(wire.Event{Type: wire.EventRunFinished})
	if f.live.events != 0 || len(f.live.runs) != 0 {
		t.Errorf("after the run's end %d runs and %d events are kept", len(f.live.runs), f.live.events)
	}
}
