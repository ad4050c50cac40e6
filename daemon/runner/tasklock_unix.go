//go:build unix

package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// taskLock holds an exclusive flock for one task id across processes, so
// the same task never executes twice at once in a workspace. It is a bare
// descriptor (open, flock, close: three system calls a task), not an
// *os.File, whose runtime poller registration costs five more; close
// releases the lock.
type taskLock struct{ fd int }

func lockTask(ctx context.Context, dir, key string) (*taskLock, error) {
	path := filepath.Join(dir, key+".lock")
	fd, err := openLock(path)
	if errors.Is(err, syscall.ENOENT) {
		// The locks directory is made once, by the first task to need it.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		fd, err = openLock(path)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &taskLock{fd: fd}, nil
		}
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			syscall.Close(fd)
			return nil, err
		}
		select {
		case <-ctx.Done():
			syscall.Close(fd)
			return nil, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

func openLock(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_CREAT|syscall.O_RDWR|syscall.O_CLOEXEC, 0o644)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

func (l *taskLock) release() {
	if l != nil && l.fd >= 0 {
		// The descriptor is the only one on its open file (O_CLOEXEC:
		// no task inherits it), so closing it releases the flock.
		_ = syscall.Close(l.fd)
		l.fd = -1
	}
}
