package runner

import (
	"os"
	"syscall"

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
