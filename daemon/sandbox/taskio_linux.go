package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// taskIO is what a forked session does in exec.Cmd's place: the task's
// standard descriptors, the goroutines copying its pipes, and its wait.
type taskIO struct {
	child  []*os.File // the child's ends, closed once it has started
	parent []*os.File // the pipes' read (or stdin's write) ends
	copies []func()   // the copiers, started once the task has: an abandoned start copies nothing
	copied chan error
	exited *os.File // an observed task's pidfd, which its waiter polls (waiter_linux.go); nil without an observer, and once Wait closed it
}

// stdio gives the child cmd's Stdin, Stdout and Stderr as os/exec would:
// nil is /dev/null, an *os.File its own descriptor, anything else a pipe
// copied by a goroutine; Stdout and Stderr share one pipe when they are
// the same writer. Each descriptor the child gets is 3 or more, so that
// its dup3 onto 0-2 never overwrites one it still needs.
func (t *taskIO) stdio(cmd *exec.Cmd) (fds [3]int, err error) {
	t.copied = make(chan error, 3)
	if fds[0], err = t.input(cmd.Stdin); err != nil {
		return fds, err
	}
	if fds[1], err = t.output(cmd.Stdout); err != nil {
		return fds, err
	}
	if cmd.Stderr != nil && sameWriter(cmd.Stderr, cmd.Stdout) {
		fds[2] = fds[1]
	} else if fds[2], err = t.output(cmd.Stderr); err != nil {
		return fds, err
	}
	for i, fd := range fds {
		if fd < 3 {
			// vx's own 0-2 (a caller's os.Stdout): a copy above them.
			nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
			if err != nil {
				return fds, fmt.Errorf("duplicating descriptor %d: %w", fd, err)
			}
			t.child = append(t.child, os.NewFile(uintptr(nfd), "stdio"))
			fds[i] = nfd
		}
	}
	return fds, nil
}

// sameWriter is a == b, false for writers that cannot be compared.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() { _ = recover() }()
	return a == b
}

func (t *taskIO) input(r io.Reader) (int, error) {
	switch f := r.(type) {
	case nil:
		return t.devNull(os.O_RDONLY)
	case *os.File:
		return int(f.Fd()), nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return -1, err
	}
	t.child, t.parent = append(t.child, pr), append(t.parent, pw)
	t.copies = append(t.copies, func() {
		_, err := io.Copy(pw, r)
		// The task may stop reading and exit: that is no error of its.
		if errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
			err = nil
		}
		if cerr := pw.Close(); err == nil && !errors.Is(cerr, os.ErrClosed) {
			err = cerr
		}
		t.copied <- err
	})
	return int(pr.Fd()), nil
}

func (t *taskIO) output(w io.Writer) (int, error) {
	switch f := w.(type) {
	case nil:
		return t.devNull(os.O_WRONLY)
	case *os.File:
		return int(f.Fd()), nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return -1, err
	}
	t.child, t.parent = append(t.child, pw), append(t.parent, pr)
	t.copies = append(t.copies, func() {
		_, err := io.Copy(w, pr)
		if errors.Is(err, os.ErrClosed) {
			err = nil // closed by wait after WaitDelay, which says so
		}
		t.copied <- err
	})
	return int(pw.Fd()), nil
}

func (t *taskIO) devNull(flag int) (int, error) {
	f, err := os.OpenFile(os.DevNull, flag, 0)
	if err != nil {
		return -1, err
	}
	t.child = append(t.child, f)
	return int(f.Fd()), nil
}

// copy starts the copiers, once the task has started. Not before: a
// start that gives up (errNoFork) leaves cmd's streams to os/exec, and
// a copier begun meanwhile would have read the task's stdin into a pipe
// nobody reads, or written to its Stdout beside os/exec's.
func (t *taskIO) copy() {
	for _, f := range t.copies {
		go f()
	}
}

// started closes the child's ends, which only the child uses now.
func (t *taskIO) started() {
	for _, f := range t.child {
		f.Close()
	}
	t.child = nil
}

// abandon closes everything after a failed start; no copier started.
func (t *taskIO) abandon() {
	t.started()
	for _, f := range t.parent {
		f.Close()
	}
}

// wait waits for the task, then for its output as exec.Cmd.Wait does:
// up to cmd.WaitDelay (if set) for processes that outlived it and keep a
// pipe open, after which the pipes are closed and the error is
// exec.ErrWaitDelay. It sets cmd.ProcessState.
func (t *taskIO) wait(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errors.New("exec: not started")
	}
	if cmd.ProcessState != nil {
		return errors.New("exec: Wait was already called")
	}
	if t.exited != nil {
		// Nil once closed: a second Wait must not poll it again.
		t.exited.Close()
		t.exited = nil
	}
	// At once after serveUntilExit; without an observer the task is
	// waited for here, in waitid, as os/exec does.
	state, err := cmd.Process.Wait()
	if err != nil {
		t.abandon()
		return err
	}
	cmd.ProcessState = state
	var copyErr error
	var timeout <-chan time.Time
	if cmd.WaitDelay > 0 {
		timer := time.NewTimer(cmd.WaitDelay)
		defer timer.Stop()
		timeout = timer.C
	}
	for n := len(t.copies); n > 0; {
		select {
		case err := <-t.copied:
			n--
			if copyErr == nil {
				copyErr = err
			}
		case <-timeout:
			timeout = nil
			for _, f := range t.parent {
				f.Close()
			}
			if copyErr == nil {
				copyErr = exec.ErrWaitDelay
			}
		}
	}
	for _, f := range t.parent {
		f.Close()
	}
	if !state.Success() {
		return &exec.ExitError{ProcessState: state}
	}
	return copyErr
}
