package server

import (
	"slices"

	"github.com/vzn/vx/protocol/wire"
)

// A page that connects to /events while a run is under way has missed the
// run's start and its finished tasks: it would show the run from the first
// event it saw ("running 3/? tasks" after 16 finished, a timeline that
// starts with the tasks running now). So the feed keeps the events of the
// runs still under way and hands them to a new subscriber first.

// maxLiveRuns bounds the runs kept; a run killed before its end never says
// so, and the oldest such run is dropped when more start.
const maxLiveRuns = 8

// maxLiveEvents bounds the task events kept of all runs under way
// together (a task starts and finishes: two a task, for the largest run vx
// pushes; a few MiB). Past it a run's further task events are not kept:
// its replay ends before its last tasks.
const maxLiveEvents = 2 * wire.MaxPushTasks

// liveRuns are the runs under way, in the order they started.
type liveRuns struct {
	runs   []*liveRun
	events int // task events kept, of every run
}

type liveRun struct {
	id     string
	events []wire.Event
}

// note records e; called with the feed's lock held.
func (l *liveRuns) note(e wire.Event) {
	if e.RunID == "" {
		return
	}
	i := slices.IndexFunc(l.runs, func(r *liveRun) bool { return r.id == e.RunID })
	switch e.Type {
	case wire.EventRunStarted:
		if i >= 0 {
			l.drop(i)
		}
		if len(l.runs) >= maxLiveRuns {
			l.drop(0)
		}
		l.runs = append(l.runs, &liveRun{id: e.RunID, events: []wire.Event{e}})
	case wire.EventRunFinished:
		if i >= 0 {
			l.drop(i)
		}
	case wire.EventTaskStarted, wire.EventTaskFinished:
		if i >= 0 && l.events < maxLiveEvents {
			l.runs[i].events = append(l.runs[i].events, e)
			l.events++
		}
	}
}

// drop forgets the i-th run.
func (l *liveRuns) drop(i int) {
	l.events -= len(l.runs[i].events) - 1 // its run.started is not counted
	l.runs = slices.Delete(l.runs, i, i+1)
}

// replay is every kept event, run by run; called with the feed's lock held.
func (l *liveRuns) replay() []wire.Event {
	var out []wire.Event
	for _, r := range l.runs {
		out = append(out, r.events...)
	}
	return out
}
