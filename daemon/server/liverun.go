package server

import (
	"bytes"
	"context"
	"slices"

	"github.com/vzn/vx/daemon/history"
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
	// lines are the task events of a shell run as its event file has
	// them, each ended by its newline (after events, whose only one is
	// then its start), decoded only for a subscriber that joins mid-run
	// (replay): a run of 10,000 cache hits writes 20,000, mostly while
	// nobody watches. They are copied into blocks of lineBlock bytes
	// that are filled, never grown: 3 MB of lines appended to one slice
	// were copied over and over as it grew.
	lines [][]byte
	kept  int // task events in lines
}

// lineBlock is the size of a block of kept lines (a longer line has a
// block of its own).
const lineBlock = 256 << 10

// note records e; called with the feed's lock held.
func (l *liveRuns) note(e wire.Event) { l.noteLine(e, nil) }

// noteLine records e, which a shell run's event file has as line (nil:
// none; a task event with one is kept as that line); called with the
// feed's lock held.
func (l *liveRuns) noteLine(e wire.Event, line []byte) {
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
		// Room for each task's two events from the start (within what
		// may be kept): 20,000 events appended one by one were copied
		// over and over as the slice grew.
		room := 1 + min(2*min(max(e.Tasks, 0), maxLiveEvents), maxLiveEvents-l.events)
		if line != nil {
			room = 1 // its task events are kept as lines
		}
		events := append(make([]wire.Event, 0, room), e)
		l.runs = append(l.runs, &liveRun{id: e.RunID, events: events})
	case wire.EventRunFinished:
		if i >= 0 {
			l.drop(i)
		}
	case wire.EventTaskStarted, wire.EventTaskFinished:
		switch {
		case i < 0 || l.events >= maxLiveEvents:
		case line != nil:
			l.runs[i].keep(line)
			l.events++
		default:
			l.runs[i].events = append(l.runs[i].events, e)
			l.events++
		}
	}
}

// keep copies line, ended by its newline, to the run's last block of
// lines, or to a new one when it has no room left.
func (r *liveRun) keep(line []byte) {
	r.kept++
	n := len(r.lines)
	if n == 0 || cap(r.lines[n-1])-len(r.lines[n-1]) < len(line) {
		r.lines = append(r.lines, make([]byte, 0, max(lineBlock, len(line))))
		n++
	}
	r.lines[n-1] = append(r.lines[n-1], line...)
}

// drop forgets the i-th run.
func (l *liveRuns) drop(i int) {
	r := l.runs[i]
	l.events -= len(r.events) - 1 + r.kept // its run.started is not counted
	l.runs = slices.Delete(l.runs, i, i+1)
}

// replay is every kept event, run by run; called with the feed's lock held.
func (l *liveRuns) replay() []wire.Event {
	var out []wire.Event
	for _, r := range l.runs {
		out = append(out, r.events...)
		for _, chunk := range r.lines {
			for rest := chunk; len(rest) > 0; {
				line, next, _ := bytes.Cut(rest, []byte{'\n'})
				rest = next
				var e wire.Event
				if e.DecodeLine(line) == nil {
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// forget drops run id's kept events.
func (f *liveFeed) forget(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i := slices.IndexFunc(f.live.runs, func(r *liveRun) bool { return r.id == id }); i >= 0 {
		f.live.drop(i)
	}
}

// liveOnly keeps the replayed events of the runs still under way. A run
// whose vx was killed (-9) never says it ended; the history reads it as
// interrupted once its process is gone, and the feed forgets it rather
// than hand it to every page that connects as a run under way.
func (d *daemon) liveOnly(ctx context.Context, replay []wire.Event) []wire.Event {
	if len(replay) == 0 || d.env == nil {
		return replay
	}
	h, err := d.env.History(ctx)
	if err != nil {
		return replay
	}
	gone := map[string]bool{}
	for _, e := range replay {
		if e.Type != wire.EventRunStarted {
			continue
		}
		if run, err := h.ResolveRun(ctx, e.RunID); err == nil && run.Status != history.RunRunning {
			gone[e.RunID] = true
			d.feed.forget(e.RunID)
		}
	}
	return slices.DeleteFunc(replay, func(e wire.Event) bool { return gone[e.RunID] })
}
