//go:build unix

package runner

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ownGroup makes a process start as the leader of a group of its own.
func ownGroup(attr *syscall.SysProcAttr) { attr.Setpgid = true }

// ownSession makes a process start in a session of its own, out of reach
// of its parent's terminal and group.
func ownSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// signalGroup sends sig to every process of the group.
func signalGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }

// groupAlive says whether a process of the group is still there.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// killGroup asks the group to stop, then kills what is left.
func killGroup(pgid int) {
	signalGroup(pgid, syscall.SIGTERM)
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	signalGroup(pgid, syscall.SIGKILL)
}

// holdTree does nothing: the task's process group and cgroup hold it.
func holdTree(int) {}

// releaseTree does nothing: the task's group was killed, and what left
// it is found by its mark.
func releaseTree(int) {}

// cpuTime is the user and system time ru counts.
func cpuTime(ru *syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// openDirNoFollow opens dir, a directory and no symbolic link.
func openDirNoFollow(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), dir), nil
}
