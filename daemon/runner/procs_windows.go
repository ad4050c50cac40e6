package runner

import (
	"os"
	"syscall"

	"github.com/vzn/vx/daemon/hashing"
)

// setDeathSignal does nothing: Windows has no parent-death signal. The
// task's Job Object ends its processes when vx ends (group_windows.go).
func setDeathSignal(*syscall.SysProcAttr) {}

// maxRSS is 0: Windows' process times carry no peak memory.
func maxRSS(*syscall.Rusage) int64 { return 0 }

// selfHWM is 0: not measured on Windows.
func selfHWM() int64 { return 0 }

// selfExe is vx's own binary, to start again as the watchdog.
func selfExe() (string, error) { return os.Executable() }

// leaderExited is nil, never closed: a task's processes are its Job
// Object's, ended when the task's wait returns (releaseTree).
func leaderExited(int) <-chan struct{} { return nil }

// openDirNoFollow opens dir, a directory and no symbolic link (reparse
// point).
func openDirNoFollow(dir string) (*os.File, error) {
	var st hashing.Stat
	if err := hashing.Lstat(dir, &st); err != nil {
		return nil, err
	}
	if !st.Dir() {
		return nil, &os.PathError{Op: "open", Path: dir, Err: syscall.ENOTDIR}
	}
	return os.Open(dir)
}
