package procmark

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// subreaper is set once the caller made itself a subreaper.
var subreaper atomic.Bool

// BecomeSubreaper makes the caller the subreaper of the processes it
// starts: one they orphan (a double fork, a setsid child whose parent
// exited) becomes the caller's child instead of init's, where Sweep and
// Kill find it. Only a short-lived caller should: what any of its
// children orphans becomes its child, and stays its zombie once it exits
// unless the caller reaps it.
func BecomeSubreaper() {
	if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil {
		subreaper.Store(true)
	}
}

// Sweep kills what carries m outside process group pgid, which the
// caller killed. A subreaper reaps the group's killed processes first
// (only once a process is gone are its orphans the caller's children),
// kills and reaps the marked ones among its children, and reaps the
// group's zombies again (the caller reaped the group's first process,
// which it started, itself). since is unused here.
func Sweep(m Mark, pgid int, since time.Time) {
	reapGroup(pgid)
	Kill(m, since)
	reapGroup(pgid)
}

// Kill kills, again until none is found, the processes that carry m: for
// a subreaper among its children, which it reaps; otherwise wherever they
// are (Find), left to their parents to reap.
func Kill(m Mark, _ time.Time) {
	for round := 0; round < 50; round++ {
		found := false
		if subreaper.Load() {
			for _, pid := range children(os.Getpid()) {
				if marked(pid, m) {
					found = true
					_ = syscall.Kill(pid, syscall.SIGKILL)
					reap(pid)
				}
			}
		} else if pids := Find(m); len(pids) > 0 {
			found = true
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if !found {
			return
		}
	}
}

// Find lists the processes that carry m wherever they are now: the
// search of a process that is not their subreaper (vxd, vx's watchdog
// once vx is gone).
func Find(m Mark) []int {
	var out []int
	for _, pid := range allProcs() {
		if marked(pid, m) {
			out = append(out, pid)
		}
	}
	return out
}

// reapGroup reaps the caller's children in group pgid, killed: its
// processes orphaned to the caller. It gives up after a second (a
// process stuck in the kernel).
func reapGroup(pgid int) {
	if pgid <= 0 {
		return
	}
	for i := 0; i < 100; {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PGID, pgid, &info, unix.WEXITED|unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
		case err != nil:
			return // ECHILD: none left
		case info.Signo == 0:
			time.Sleep(10 * time.Millisecond) // still dying
			i++
		}
	}
}

// reap waits for the caller's child pid, killed, to end, and reaps it.
func reap(pid int) {
	var ws syscall.WaitStatus
	for {
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
			return
		}
	}
}

// children lists the children of pid (of each of its threads), or every
// process where the kernel does not list children (no
// CONFIG_PROC_CHILDREN): the caller checks each one's mark.
func children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if len(tasks) == 0 {
		return allProcs()
	}
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// allProcs lists every process but the caller.
func allProcs() []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}

// marked says whether process pid's environment (as it was executed)
// carries m.
func marked(pid int, m Mark) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false // gone, a zombie, or another user's
	}
	return m.In(bytes.Split(b, []byte{0}))
}
