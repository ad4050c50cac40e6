package server

import (
	"math"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// A run's events are kept in room made at its start for each task's two
// events, bounded by what the feed may keep: a run.started announcing any
// number of tasks (a damaged or hostile event file) reserves no more.
func TestLiveRunRoomIsBounded(t *testing.T) {
	for _, tasks := range []int{0, 3, -1, wire.MaxPushTasks * 4, math.MaxInt} {
		var l liveRuns
		l.note(wire.Event{Type: wire.EventRunStarted, RunID: "r", Tasks: tasks})
		if got, limit := cap(l.runs[0].events), 1+maxLiveEvents; got > limit || got < 1 {
			t.Errorf("tasks %d: room for %d events; want 1 to %d", tasks, got, limit)
		}
		for range 3 {
			l.note(wire.Event{Type: wire.EventTaskStarted, RunID: "r", TaskID: "a#b"})
		}
		if n := len(l.runs[0].events); n != 4 {
			t.Errorf("tasks %d: %d events kept; want 4", tasks, n)
		}
	}
}
