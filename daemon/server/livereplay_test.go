package server

import (
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// TestLateSubscriberKeepsUpWhileReplaying: a subscriber that joins a large
// run is busy writing the replay out before it reads its channel; the run
// goes on meanwhile. It must not be dropped for the events that arrive in
// that time (as many as it has to replay): it would reconnect, replay
// again and be dropped again until the run ends.
func TestLateSubscriberKeepsUpWhileReplaying(t *testing.T) {
	f := newLiveFeed()
	f.Publish(wire.Event{Type: wire.EventRunStarted, RunID: "big", Tasks: 5000})
	for range 1000 {
		f.Publish(wire.Event{Type: wire.EventTaskFinished, RunID: "big", TaskID: "a#b"})
	}
	replay, ch, cancel := f.SubscribeLive()
	defer cancel()
	if len(replay) != 1001 {
		t.Fatalf("replay of %d events, want 1001", len(replay))
	}
	// While the replay is written out, 600 more events come.
	for range 600 {
		f.Publish(wire.Event{Type: wire.EventTaskFinished, RunID: "big", TaskID: "c#d"})
	}
	n := 0
	for n < 600 {
		if _, ok := <-ch; !ok {
			t.Fatalf("the late subscriber was dropped after %d events while it wrote its replay of %d", n, len(replay))
		}
		n++
	}
}
