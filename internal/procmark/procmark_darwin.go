package procmark

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper does nothing: darwin has no subreapers. A process the
// caller's children orphan becomes launchd's child, found in the process
// table.
func BecomeSubreaper() {}

// Sweep kills what carries m outside process group pgid, which the
// caller killed (Kill).
func Sweep(m Mark, _ int, since time.Time) { Kill(m, since) }

// Kill kills what carries m among the user's processes started since
// its holder did: without a subreaper, they are wherever launchd keeps
// them, so the process table is searched, again until none is left.
func Kill(m Mark, since time.Time) {
	for round := 0; round < 50; round++ {
		pids := markedSince(m, since)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Find lists the processes that carry m wherever they are now.
func Find(m Mark) []int { return markedSince(m, time.Time{}) }

// markedSince lists the user's processes started at or after since that
// carry m. It reads each one's arguments and environment
// (kern.procargs2), which the kernel gives for processes of the same
// user.
func markedSince(m Mark, since time.Time) []int {
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
		if env := procEnv(pid); env != nil && m.In(env) {
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
