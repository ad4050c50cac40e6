package ops

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// runSlots holds, per workspace root, the runTasks in progress: vxd runs
// one at a time in a workspace, so a batch of runTasks (or two agents)
// cannot start a crowd of `vx run` that fight over the same outputs.
var runSlots sync.Map // root → *runSlot

type runSlot struct {
	mu    sync.Mutex
	busy  bool
	what  string
	since time.Time
}

// busyError is runTasks refused because another is running.
type busyError struct {
	What  string // the running command line
	Since time.Time
}

func (e *busyError) Error() string {
	return fmt.Sprintf("another runTasks is running in this workspace: vx %s (started %s, %s ago); vxd "+
		"runs one at a time: wait for it to finish (getRunHistory or `vx last` shows it) or cancel it, then call again",
		e.What, e.Since.Format("15:04:05"), time.Since(e.Since).Round(time.Second))
}

// takeRunSlot claims the workspace's run slot for args, or says who has it.
func takeRunSlot(root string, args []string) (release func(), err error) {
	v, _ := runSlots.LoadOrStore(root, &runSlot{})
	s := v.(*runSlot)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return nil, &busyError{What: s.what, Since: s.since}
	}
	s.busy, s.what, s.since = true, strings.Join(args, " "), time.Now()
	return func() {
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
	}, nil
}
