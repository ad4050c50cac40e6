package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/vzn/vx/protocol/wire"
	"golang.org/x/sys/unix"
)

// Session is one confined execution: Start starts it, Wait waits for it
// and Finish returns what the observer saw.
type Session struct {
	policy    *Policy
	table     map[int]call
	listener  int        // the seccomp listener, -1 without one
	answering sync.Mutex // held by whoever answers: the task's waiter, then the hub
	closed    bool       // the listener is closed (by the hub, if it failed)
	cmd       *exec.Cmd
	io        *taskIO       // a forked session's descriptors and wait; nil when started from a thread
	release   chan struct{} // closed once the hub has let go of the listener: the forking thread may end
	released  sync.Once
	mu        sync.Mutex
	seen      map[string]bool
	records   []wire.SandboxViolation
}

// Start starts cmd confined by p. Go runs no code of ours between fork
// and exec in os/exec, so Start clones the task itself (fork_linux.go):
// the child, sharing vx's memory until it execs, sets no_new_privs,
// restricts itself with the Landlock ruleset, installs the observer's
// filter (its listener made in vx's descriptor table) and execs. The task's shell is thus
// bound before its first instruction, and every process it starts with
// it, and no thread of vx is confined. The ruleset and the filter are
// built before, so the child makes only the calls that must be its own.
// The cmd's standard streams, Process, ProcessState and WaitDelay work as
// exec.Cmd's.
//
// Where the forked start is not available (an architecture other than
// amd64, a kernel without clone3, or a command asking for more than the
// runner sets: other SysProcAttr settings, ExtraFiles, a context), a
// child inherits the credentials and the seccomp filter of the thread
// that forks it: Start confines a fresh, locked OS thread, starts cmd from it with os/exec, and keeps
// that thread parked, never reused, until Finish (a parent-death signal
// follows the forking thread; and while the thread lives the listener
// cannot hang up, which would wake the hub for nothing).
func Start(cmd *exec.Cmd, p *Policy) (*Session, error) {
	s := &Session{policy: p, cmd: cmd, listener: -1, release: make(chan struct{}), seen: map[string]bool{}}
	rfd, dirRights, fileRights := -1, uint64(0), uint64(0)
	if p.Landlock {
		var err error
		if rfd, dirRights, fileRights, err = ruleset(p.Network); err != nil {
			return nil, err
		}
		// A kernel whose Landlock vx does not apply denies nothing: no
		// violation is recorded as denied.
		p.Landlock = rfd >= 0
		defer func() {
			if rfd >= 0 {
				unix.Close(rfd)
			}
		}()
	}
	if err := p.resolve(rfd, dirRights, fileRights); err != nil {
		return nil, err
	}
	var prog *unix.SockFprog
	if p.Observe {
		if err := observers.start(); err != nil {
			return nil, err
		}
		var err error
		if s.table, prog, err = observed(p.Network); err != nil {
			return nil, err
		}
	}
	switch err := s.fork(cmd, rfd, prog); {
	case err == nil:
		return s, nil
	case !errors.Is(err, errNoFork):
		return nil, err
	}
	started := make(chan error, 1)
	go func() {
		// Never unlocked: when this goroutine returns, Go ends the thread.
		runtime.LockOSThread()
		err := s.confineThread(rfd, prog)
		if err == nil {
			err = cmd.Start()
		}
		started <- err
		if err == nil {
			<-s.release
		}
	}()
	if err := <-started; err != nil {
		s.halt()
		return nil, err
	}
	return s, nil
}

// confineThread confines the calling (locked) thread and starts observing.
func (s *Session) confineThread(rfd int, prog *unix.SockFprog) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if rfd >= 0 {
		if err := ll.LandlockRestrictSelf(rfd, 0); err != nil {
			return fmt.Errorf("landlock_restrict_self: %w", err)
		}
	}
	if prog == nil {
		return nil
	}
	fd, err := installObserver(prog)
	if err != nil {
		return err
	}
	s.listener = fd
	if err := observers.add(s); err != nil {
		s.halt()
		return err
	}
	return nil
}

// Wait waits for the command, as cmd.Wait.
func (s *Session) Wait() error {
	if s.io != nil {
		if s.listener >= 0 && s.io.exited != nil && s.takeFromHub() {
			s.serveUntilExit(int(s.io.exited.Fd()))
		}
		return s.io.wait(s.cmd)
	}
	return s.cmd.Wait()
}

// halt stops the hub answering the listener (after the answer in
// progress, if any) and closes it: a process of the task still running
// after that (one that left the task's process group) gets ENOSYS from a
// watched call.
func (s *Session) halt() {
	defer s.released.Do(func() { close(s.release) })
	if s.listener < 0 {
		return
	}
	observers.remove(s)
	s.answering.Lock()
	if !s.closed {
		unix.Close(s.listener)
	}
	s.closed = true
	s.answering.Unlock()
	s.listener = -1
}

// Finish stops observing and returns the violations, oldest first. Call it
// once the command has exited and its process group has been killed: every
// call the task made before then has been answered, so none is missed.
func (s *Session) Finish() []wire.SandboxViolation {
	s.halt()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]wire.SandboxViolation(nil), s.records...)
}

func (s *Session) record(v wire.SandboxViolation) {
	key := v.Op + "\x00" + v.Path + "\x00" + v.Address + "\x00" + v.Process
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[key] || len(s.records) >= MaxViolations {
		return
	}
	s.seen[key] = true
	s.records = append(s.records, v)
}

// self reports whether tid is a thread of vx itself (the confined thread
// between its filter and the fork): not the task's doing.
func self(tid int) bool { return tgid(tid) == os.Getpid() }
