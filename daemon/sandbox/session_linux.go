package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/vzn/vx/protocol/wire"
	"golang.org/x/sys/unix"
)

// Session is one confined execution: Start starts it, Wait waits for it
// and Finish returns what the observer saw.
type Session struct {
	policy  *Policy
	table   map[int]call
	notify  int    // the seccomp listener, -1 without one
	wake    [2]int // a pipe that wakes the observer to stop
	stop    atomic.Bool
	done    chan struct{} // the observer has stopped
	waited  chan error    // cmd.Wait's answer
	mu      sync.Mutex
	seen    map[string]bool
	records []wire.SandboxViolation
}

// Start starts cmd confined by p. Go runs no code of ours between fork and
// exec, but a child inherits the credentials and the seccomp filter of the
// thread that forks it: Start confines a fresh, locked OS thread (no_new_privs,
// the Landlock ruleset, the observer's filter), starts cmd from it, and keeps
// that thread, never reused, until cmd has exited (a parent-death signal
// follows the forking thread). The task's shell is thus bound before its
// first instruction, and every process it starts with it.
func Start(cmd *exec.Cmd, p *Policy) (*Session, error) {
	s := &Session{policy: p, table: calls(p.Network), notify: -1, done: make(chan struct{}), waited: make(chan error, 1), seen: map[string]bool{}}
	started := make(chan error, 1)
	go func() {
		// Never unlocked: when this goroutine returns, Go ends the thread.
		runtime.LockOSThread()
		if err := s.confineThread(); err != nil {
			started <- err
			return
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		s.waited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		s.halt()
		return nil, err
	}
	return s, nil
}

// confineThread confines the calling (locked) thread and starts observing.
func (s *Session) confineThread() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if s.policy.Landlock {
		if err := restrict(s.policy); err != nil {
			return err
		}
	}
	if !s.policy.Observe {
		close(s.done)
		return nil
	}
	if err := unix.Pipe2(s.wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		close(s.done)
		return fmt.Errorf("sandbox observer pipe: %w", err)
	}
	fd, err := installObserver(s.policy)
	if err != nil {
		unix.Close(s.wake[0])
		unix.Close(s.wake[1])
		close(s.done)
		return err
	}
	s.notify = fd
	go s.loop()
	return nil
}

// Wait waits for the command, as cmd.Wait.
func (s *Session) Wait() error { return <-s.waited }

// halt stops the observer once it has answered every pending call, and
// closes the listener: a process of the task still running after that
// (one that left the task's process group) gets ENOSYS from a watched call.
func (s *Session) halt() {
	if s.notify >= 0 {
		s.stop.Store(true)
		unix.Write(s.wake[1], []byte{1})
		<-s.done
		unix.Close(s.notify)
		unix.Close(s.wake[0])
		unix.Close(s.wake[1])
		s.notify = -1
	}
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
