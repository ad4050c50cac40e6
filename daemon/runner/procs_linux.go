package runner

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

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
