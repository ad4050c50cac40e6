package server

import (
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// TestPublishPaced: a burst read back from an event file reaches a
// subscriber that reads slower than the burst comes, while a subscriber
// that never reads is still dropped.
func TestPublishPaced(t *testing.T) {
	f := newLiveFeed()
	reader, cancelReader := f.Subscribe()
	defer cancelReader()
	stalled, cancelStalled := f.Subscribe()
	defer cancelStalled()
	const burst = 2000
	got := make(chan int)
	go func() {
		n := 0
		for range reader {
			n++
			time.Sleep(100 * time.Microsecond) // slower than the burst
			if n == burst {
				break
			}
		}
		got <- n
	}()
	for i := range burst {
		f.PublishPaced(wire.Event{Type: wire.EventTaskFinished, TaskID: string(rune('a' + i%26))})
	}
	if n := <-got; n != burst {
		t.Errorf("the reading subscriber got %d of %d events", n, burst)
	}
	queued := 0
	for range stalled {
		queued++
	}
	if queued == burst {
		t.Errorf("the stalled subscriber was never dropped")
	}
}

// TestSubscribeMidRun: a subscriber that joins while a run is under way
// gets the run's start and its tasks so far before anything new; a run
// that finished is not replayed.
func TestSubscribeMidRun(t *testing.T) {
	f := newLiveFeed()
	f.Publish(wire.Event{Type: wire.EventRunStarted, RunID: "old", Tasks: 1})
	f.Publish(wire.Event{Type: wire.EventRunFinished, RunID: "old"})
	f.Publish(wire.Event{Type: wire.EventRunStarted, RunID: "r1", Tasks: 40})
	for _, id := range []string{"a#build", "b#build"} {
		f.Publish(wire.Event{Type: wire.EventTaskStarted, RunID: "r1", TaskID: id})
		f.Publish(wire.Event{Type: wire.EventTaskFinished, RunID: "r1", TaskID: id, Status: wire.StatusPassed})
	}
	replay, ch, cancel := f.SubscribeLive()
	defer cancel()
	if len(replay) != 5 || replay[0].Type != wire.EventRunStarted || replay[0].RunID != "r1" || replay[0].Tasks != 40 || replay[4].TaskID != "b#build" {
		t.Fatalf("replay: %+v", replay)
	}
	f.Publish(wire.Event{Type: wire.EventRunFinished, RunID: "r1"})
	if e := <-ch; e.Type != wire.EventRunFinished {
		t.Fatalf("after the replay: %+v", e)
	}
	if replay, _, cancel := f.SubscribeLive(); len(replay) != 0 {
		cancel()
		t.Fatalf("a finished run is replayed: %+v", replay)
	} else {
		cancel()
	}
}

// TestLiveRunsBounded: the runs under way keep at most maxLiveEvents task
// events together and maxLiveRuns runs (a run killed before its end never
// finishes), and a finished run gives its budget back.
func TestLiveRunsBounded(t *testing.T) {
	var l liveRuns
	l.note(wire.Event{Type: wire.EventRunStarted, RunID: "big"})
	for range maxLiveEvents + 10 {
		l.note(wire.Event{Type: wire.EventTaskFinished, RunID: "big", TaskID: "a#b"})
	}
	if l.events != maxLiveEvents || len(l.replay()) != maxLiveEvents+1 {
		t.Fatalf("kept %d task events (%d replayed), want %d", l.events, len(l.replay()), maxLiveEvents)
	}
	l.note(wire.Event{Type: wire.EventRunFinished, RunID: "big"})
	if l.events != 0 || len(l.replay()) != 0 {
		t.Fatalf("after the run finished: %d events kept", l.events)
	}
	for i := range maxLiveRuns + 3 {
		id := string(rune('a' + i))
		l.note(wire.Event{Type: wire.EventRunStarted, RunID: id})
		l.note(wire.Event{Type: wire.EventTaskStarted, RunID: id, TaskID: "x#y"})
	}
	if len(l.runs) != maxLiveRuns || l.events != maxLiveRuns || l.runs[0].id != string(rune('a'+3)) {
		t.Fatalf("%d runs, %d events kept, oldest %s", len(l.runs), l.events, l.runs[0].id)
	}
}
