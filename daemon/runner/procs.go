package runner

import (
	"sync"
	"syscall"
	"time"

	"github.com/vzn/vx/internal/procmark"
)

// No process of a task outlives vx. Each task starts in a process group of
// its own (a timeout or an interrupt kills the group) and, where the
// kernel offers one, in a cgroup of its own beneath the run's cgroup
// (cgroup_linux.go), which holds also the processes that left the group
// (setsid, a double fork). Without a cgroup, those are found by the mark
// every task's environment carries (taskEnv, internal/procmark), among
// vx's children where vx can be their subreaper (Linux), else in the
// process table (darwin). When the task ends, its group, its cgroup or what
// carries its mark are killed. So that vx's own death (kill -9) kills them
// too, a watchdog process (watchdog.go) holds a pipe from vx: when the
// pipe closes it kills the groups, the run's cgroup and the marked
// processes of the tasks still running. docs/processes.md says what each
// host gets.

// NoCgroupEnv, set to 1, makes vx run its tasks without cgroups, as on a
// host where it cannot create one. It exists for tests of that case.
const NoCgroupEnv = "VX_FORCE_NO_CGROUP"

// procState is a run's hold on its tasks' processes, made when its first
// task executes (a run that executes nothing starts no watchdog).
type procState struct {
	once sync.Once
	root string
	cg   *runCgroup // nil: no cgroup here (vx is then its tasks' subreaper)
	dog  *watchdog  // nil: it could not start (the run warns)
}

// procs readies the run's hold on its tasks' processes, once.
func (r *run) procs() *procState {
	r.ps.once.Do(func() {
		r.ps.root = r.p.Model.Root
		r.ps.cg = newRunCgroup()
		if r.ps.cg == nil {
			procmark.BecomeSubreaper()
		}
		dog, err := startWatchdog(r.ps.cg.path(), r.ps.root)
		if err != nil {
			r.warn("starting the watchdog that stops the tasks' processes should vx die: %v; if vx is killed, a process a task started may outlive it", err)
		}
		r.ps.dog = dog
	})
	return &r.ps
}

// stopProcs ends the run's hold, once every task has ended: the run's
// cgroup is removed (every task's own is gone by then) and the watchdog
// exits.
func (r *run) stopProcs() {
	r.ps.once.Do(func() {}) // no task executed: nothing to stop
	if dir := r.ps.cg.path(); dir != "" {
		removeCgroup(dir)
	}
	r.ps.dog.stop()
}

// taskProcs is one task's processes: its process group (its first
// process's pid), its cgroup when the run has one, and vx's own peak
// memory when the task's is measured without a cgroup.
type taskProcs struct {
	ps    *procState
	id    string
	cg    *taskCgroup // nil: none
	pgid  int
	since time.Time // when it started
	vxHWM int64
}

// newTask prepares task id's hold, with a cgroup of its own when possible.
func (ps *procState) newTask(id string) *taskProcs {
	return &taskProcs{ps: ps, id: id, cg: ps.cg.newTask()}
}

// attach makes the task's first process start in a group of its own,
// with vx's death signal where the OS has one, in its cgroup.
func (t *taskProcs) attach(attr *syscall.SysProcAttr) {
	ownGroup(attr)
	setDeathSignal(attr)
	t.cg.attach(attr)
}

// startFailed drops the cgroup after a failed start and reports whether
// the start is worth trying again without it (the run stops using
// cgroups: the kernel would not start a task in one).
func (t *taskProcs) startFailed() bool {
	if t.cg == nil {
		return false
	}
	t.ps.cg.giveUp()
	procmark.BecomeSubreaper()
	t.cg.remove()
	t.cg = nil
	return true
}

// started records the task's group with the watchdog and, without a
// cgroup measuring memory, vx's own peak (see peak).
func (t *taskProcs) started(pid int) {
	t.pgid, t.since = pid, time.Now()
	holdTree(pid)
	t.ps.dog.started(pid, t.id)
	if !t.cg.measuresMemory() {
		t.vxHWM = selfHWM()
	}
}

// peak is the task's own peak memory in bytes (0: none measured).
//
// With the memory controller, its cgroup's memory.peak. Otherwise the
// kernel's high-water mark of the task's processes (ru_maxrss), but only
// when it exceeds vx's own peak when the task started: the forked child
// shares vx's pages until it executes the command, so its mark starts at
// vx's. A task lighter than vx shows no peak (0).
func (t *taskProcs) peak(ru *syscall.Rusage) int64 {
	if n, ok := t.cg.peak(); ok {
		return n
	}
	if ru == nil {
		return 0
	}
	if own := maxRSS(ru); t.vxHWM > 0 && own > t.vxHWM {
		return own
	}
	return 0
}

// killLeft kills, once the task's first process has exited, what it left
// running: its group, and what left the group (its cgroup's processes,
// else those carrying its mark). end, later, kills again what is found
// then and reaps.
func (t *taskProcs) killLeft() {
	signalGroup(t.pgid, syscall.SIGKILL)
	if t.cg != nil {
		t.cg.kill()
	} else {
		procmark.Kill(t.mark(), t.since)
	}
}

// end kills what is left of the task outside its group, which the
// caller killed: all in its cgroup, which is removed, or without one what
// it left that carries its mark, and on Windows what is left in its Job
// Object (releaseTree). The watchdog forgets the task.
func (t *taskProcs) end() {
	if t.cg != nil {
		t.cg.remove()
		t.cg = nil
	} else if t.pgid > 0 {
		procmark.Sweep(t.mark(), t.pgid, t.since)
		releaseTree(t.pgid)
	}
	if t.pgid > 0 {
		t.ps.dog.ended(t.pgid)
		t.pgid = 0
	}
}

// mark is the mark every process of the task carries (taskEnv).
func (t *taskProcs) mark() procmark.Mark {
	return procmark.Mark{Root: t.ps.root, Var: taskIDEnv, IDs: map[string]bool{t.id: true}}
}
