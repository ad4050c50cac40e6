package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vzn/vx/protocol/wire"
	"golang.org/x/sys/unix"
)

// Session is one confined execution: Wrap prepares the command, Started
// takes the observer's descriptor from the helper, Finish returns what it saw.
type Session struct {
	policy  *Policy
	table   map[int]call
	polR    *os.File // the helper's policy descriptor
	polW    *os.File
	sock    int      // vx's end of the listener socket
	child   *os.File // the helper's end
	notify  int      // the seccomp listener, -1 without one
	stop    atomic.Bool
	done    chan struct{}
	mu      sync.Mutex
	seen    map[string]bool
	records []wire.SandboxViolation
}

// Wrap turns cmd (whose Dir, Env and I/O are set) into a start of the
// helper with policy p. cmd's Path and Args are replaced: the command is
// p.Command, carried on a descriptor.
func Wrap(cmd *exec.Cmd, p *Policy) (*Session, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding vx's own executable for the sandbox helper: %w", err)
	}
	s := &Session{policy: p, table: calls(p.Network), notify: -1, sock: -1, done: make(chan struct{}), seen: map[string]bool{}}
	if s.polR, s.polW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("sandbox policy pipe: %w", err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		s.polR.Close()
		s.polW.Close()
		return nil, fmt.Errorf("sandbox listener socket: %w", err)
	}
	s.sock, s.child = fds[0], os.NewFile(uintptr(fds[1]), "sandbox-listener")
	cmd.Path, cmd.Args = exe, []string{HelperName}
	cmd.ExtraFiles = []*os.File{s.polR, s.child} // fds 3 and 4
	return s, nil
}

// Abort releases a session whose command did not start.
func (s *Session) Abort() {
	s.polR.Close()
	s.polW.Close()
	s.child.Close()
	unix.Close(s.sock)
	close(s.done)
}

// Started hands the helper its policy and, when it observes, waits for the
// listener it sends back and starts reading it.
func (s *Session) Started() error {
	s.polR.Close()
	s.child.Close()
	b, err := json.Marshal(s.policy)
	if err == nil {
		go func() { // a policy larger than the pipe must not block vx
			s.polW.Write(b)
			s.polW.Close()
		}()
	} else {
		s.polW.Close()
	}
	if !s.policy.Observe {
		unix.Close(s.sock)
		close(s.done)
		return err
	}
	fd, rerr := recvFD(s.sock)
	unix.Close(s.sock)
	if rerr != nil {
		close(s.done)
		return rerr
	}
	s.notify = fd
	go s.loop()
	return err
}

// recvFD reads one descriptor; EOF means the helper failed before
// installing the observer (it says why on the task's stderr).
func recvFD(sock int) (int, error) {
	tv := unix.Timeval{Sec: 30}
	_ = unix.SetsockoptTimeval(sock, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("receiving the sandbox observer: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) == 0 {
		return -1, errors.New("the sandbox helper exited before installing its observer")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, errors.New("the sandbox helper sent no observer descriptor")
	}
	return fds[0], nil
}

// Finish waits (up to grace) for every observed process to be gone, stops
// observing and returns the violations, oldest first.
func (s *Session) Finish(grace time.Duration) []wire.SandboxViolation {
	select {
	case <-s.done:
	case <-time.After(grace):
		s.stop.Store(true)
		<-s.done
	}
	if s.notify >= 0 {
		unix.Close(s.notify)
		s.notify = -1
	}
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
