package runner

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// setDeathSignal does nothing: darwin has no parent-death signal. When vx
// dies, the watchdog kills the task's group.
func setDeathSignal(*syscall.SysProcAttr) {}

// maxRSS is ru_maxrss in bytes (darwin counts bytes).
func maxRSS(ru *syscall.Rusage) int64 { return ru.Maxrss }

// selfHWM is vx's own peak resident memory in bytes, 0 if unknown.
func selfHWM() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return maxRSS(&ru)
}

// selfExe is vx's own binary, to start again as the watchdog.
func selfExe() (string, error) { return os.Executable() }

// becomeSubreaper does nothing: darwin has no subreapers. A process a
// task orphans becomes launchd's child.
func becomeSubreaper() {}

// leaderExited is closed when process pid has exited (kqueue's
// NOTE_EXIT, which does not reap it); nil, never closed, where the
// kernel will not watch it.
func leaderExited(pid int) <-chan struct{} {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil
	}
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		unix.Close(kq)
		return nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unix.Close(kq)
		out := make([]unix.Kevent_t, 1)
		for {
			if _, err := unix.Kevent(kq, nil, out, nil); err != unix.EINTR {
				return
			}
		}
	}()
	return done
}

// endEscapees kills what task t left behind outside its group, which the
// caller killed (killEscapees).
func endEscapees(t *taskProcs) { killEscapees(t) }

// killEscapees kills what task t left behind outside its group: without
// a subreaper, these are wherever launchd keeps them, so the process
// table is searched for the task's mark among the user's processes
// started since the task did, again until none is left.
func killEscapees(t *taskProcs) {
	ids := map[string]bool{t.id: true}
	for round := 0; round < 50; round++ {
		pids := markedSince(t.ps.root, ids, t.since)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// markedProcs lists the processes whose environment marks them as
// started for one of the tasks ids of the workspace at root (taskEnv),
// wherever they are now: the watchdog's search once vx is gone.
func markedProcs(root string, ids map[string]bool) []int {
	return markedSince(root, ids, time.Time{})
}

// markedSince lists the user's processes started at or after since that
// carry the mark of one of ids. It reads each one's arguments and
// environment (kern.procargs2), which the kernel gives for processes of
// the same user.
func markedSince(root string, ids map[string]bool, since time.Time) []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	uid := uint32(os.Geteuid())
	var out []int
	for _, p := range procs {
		pid := int(p.Proc.P_pid)
		if pid <= 1 || pid == os.Getpid() || p.Eproc.Ucred.Uid != uid {
			continue
		}
		if started := time.Unix(p.Proc.P_starttime.Unix()); started.Before(since.Truncate(time.Second)) {
			continue
		}
		if env := procEnv(pid); env != nil && hasMarker(env, root, ids) {
			out = append(out, pid)
		}
	}
	return out
}

// procEnv is process pid's environment as it was executed, nil when the
// kernel does not give it.
func procEnv(pid int) [][]byte {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil
	}
	return procArgsEnv(b)
}
