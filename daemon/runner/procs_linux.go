package runner

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// setDeathSignal has the kernel kill the task's first process when vx
// dies, before the watchdog does.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// maxRSS is ru_maxrss in bytes (Linux counts KiB).
func maxRSS(ru *syscall.Rusage) int64 { return ru.Maxrss * 1024 }

// selfHWM is vx's own peak resident memory (VmHWM) in bytes, 0 if unknown.
// Not getrusage's ru_maxrss, which starts at the high-water mark of the
// process that started vx (a vfork shares its memory until the exec).
func selfHWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			if f := bytes.Fields(rest); len(f) >= 1 {
				if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// selfExe is the path that starts vx's own binary again (the watchdog),
// even when the file was replaced or removed since vx started.
func selfExe() (string, error) { return "/proc/self/exe", nil }

// becomeSubreaper makes vx the subreaper of its tasks' processes: one a
// task orphans (a double fork) becomes vx's child instead of init's, so
// that vx can find it when the task ends (endEscapees).
func becomeSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// leaderExited is closed when process pid, vx's child, has exited. It
// does not reap it: the process stays vx's (a zombie) for its Wait.
func leaderExited(pid int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
	}()
	return done
}

// endEscapees kills and reaps what task t left behind outside its group,
// which the caller killed. The group's killed processes are reaped first:
// only once a process is gone are its orphans vx's children.
// Zombies of the group are reaped again at the end (vx started none of
// them: its first process is reaped already).
func endEscapees(t *taskProcs) {
	reapGroup(t.pgid)
	killEscapees(t)
	reapGroup(t.pgid)
}

// killEscapees kills and reaps, again until none is found, the processes
// task t left outside its group: vx being their subreaper, they are vx's
// children, found by the marker every task's environment carries
// (taskEnv).
func killEscapees(t *taskProcs) {
	ids := map[string]bool{t.id: true}
	for round := 0; round < 50; round++ {
		found := false
		for _, pid := range children(os.Getpid()) {
			if marked(pid, t.ps.root, ids) {
				found = true
				_ = syscall.Kill(pid, syscall.SIGKILL)
				reap(pid)
			}
		}
		if !found {
			return
		}
	}
}

// reapGroup reaps vx's children in group pgid, killed: its processes
// orphaned to vx. It gives up after a second (a process stuck in the
// kernel).
func reapGroup(pgid int) {
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

// reap waits for vx's child pid, killed, to end, and reaps it.
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

// allProcs lists every process but vx itself.
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

// markedProcs lists the processes whose environment marks them as
// started for one of the tasks ids of the workspace at root (taskEnv),
// wherever they are now: the watchdog's search once vx is gone.
func markedProcs(root string, ids map[string]bool) []int {
	var out []int
	for _, pid := range allProcs() {
		if marked(pid, root, ids) {
			out = append(out, pid)
		}
	}
	return out
}

// marked says whether process pid's environment (as it was executed)
// marks it as one of tasks ids' in the workspace at root.
func marked(pid int, root string, ids map[string]bool) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false // gone, a zombie, or another user's
	}
	return hasMarker(bytes.Split(b, []byte{0}), root, ids)
}
