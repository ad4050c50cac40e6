package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/vzn/vx/opkit"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/vzn/vx/daemon/runevents"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/protocol/wire"
)

// The child's side of runTasks: a `vx run --input -` reads its request
// (ReadRunRequest), stops when vxd dies (LifelineContext), and writes its
// events where vxd reads them (ExecuteOutput).

// ReadRunRequest reads the one JSON wire.RunRequest runTasks hands its
// child on stdin: bounded, unknown fields refused, at least one task. A
// request without a command is recorded as `run -- TASKS...`. A request
// that is none is a *opkit.Refusal (exit 2).
func ReadRunRequest(r io.Reader) (*wire.RunRequest, error) {
	dec := json.NewDecoder(io.LimitReader(r, wire.MaxRunRequestBytes))
	dec.DisallowUnknownFields()
	var req wire.RunRequest
	if err := dec.Decode(&req); err != nil {
		return nil, &opkit.Refusal{Msg: fmt.Sprintf("the request on stdin is not a run request (%s): "+
			"want one JSON object with tasks and optionally filters, affected, affectedRef, force, command", opkit.JSONError(err, &req))}
	}
	if len(req.Tasks) == 0 {
		return nil, &opkit.Refusal{Msg: "the request on stdin names no task (tasks is empty)"}
	}
	if len(req.Command) == 0 {
		req.Command = append([]string{"run", "--"}, req.Tasks...)
	}
	return &req, nil
}

// ExecuteOutput is where a run prints: task lines to w, events to vxd's
// runTasks when it started this run (eventsFDEnv), else to a running
// vxd's live feed. The func closes what it opened.
func ExecuteOutput(w io.Writer, root string) (runner.Output, func()) {
	out := runner.Output{W: w}
	if fd := os.Getenv(eventsFDEnv); fd != "" {
		out.Events = eventWriter(fd)
	} else if ev, closeEv := runevents.Open(root); ev != nil {
		// A daemon is up: it tails this run's events for its live feed.
		out.Events = ev
		return out, closeEv
	}
	return out, func() {}
}

// eventWriter writes run events as JSON lines to an inherited descriptor
// (the daemon's runTasks reads them for progress and its live feed).
func eventWriter(fd string) func(wire.Event) {
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return nil
	}
	// Tasks must not inherit the pipe: a process a task leaves behind would
	// keep it open (and could write into the feed).
	f := inherited(n, "events")
	if f == nil {
		return nil
	}
	var mu sync.Mutex
	var line []byte
	return func(e wire.Event) {
		mu.Lock()
		defer mu.Unlock()
		var err error
		if line, err = e.AppendJSON(line[:0]); err == nil {
			_, _ = f.Write(append(line, '\n'))
		}
	}
}

// LifelineContext is ctx, cancelled when the vxd that started this run
// (naming its lifeline in lifelineFDEnv) dies: as on SIGTERM, the run
// then stops its tasks and records itself as interrupted.
func LifelineContext(ctx context.Context) (context.Context, func()) {
	fd := os.Getenv(lifelineFDEnv)
	if fd == "" {
		return ctx, func() {}
	}
	os.Unsetenv(lifelineFDEnv) // for this process alone
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 || !isPipe(n) {
		return ctx, func() {}
	}
	f := inherited(n, "lifeline") // no task holds it
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		var b [1]byte
		for {
			if _, err := f.Read(b[:]); err != nil {
				break // EOF: vxd is gone
			}
		}
		cancel()
	}()
	return ctx, cancel
}
