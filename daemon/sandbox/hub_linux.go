package sandbox

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// hub answers the notifications of every session of this process from one
// goroutine. A session only adds its listener to the hub's epoll set and
// removes it: no goroutine, thread or wakeup of its own, so a task that
// makes no watched call costs the observer two epoll_ctl calls. The
// goroutine waits for the epoll set in Go's own poller, not in a blocking
// epoll_wait: a goroutine in a system call holds its P, and with every P
// so held (the hub's and each task's Wait) the runtime's sysmon thread
// kept waking every 20 µs to take them back.
type hub struct {
	once     sync.Once
	epfd     int
	file     *os.File // epfd in Go's poller; kept so that it is never finalized
	err      error
	mu       sync.Mutex
	sessions map[int32]*Session // by listener fd
}

var observers hub

// start creates the epoll set and its goroutine, once per process.
func (h *hub) start() error {
	h.once.Do(func() {
		h.sessions = map[int32]*Session{}
		h.epfd, h.err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		if h.err != nil {
			h.err = fmt.Errorf("seccomp observer: epoll_create1: %w", h.err)
			return
		}
		var rc syscall.RawConn
		if h.file, rc, h.err = pollable(h.epfd); h.err != nil {
			h.err = fmt.Errorf("seccomp observer: %w", h.err)
			return
		}
		go h.loop(rc)
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// add makes the hub answer s's listener.
func (h *hub) add(s *Session) error {
	fd := int32(s.listener)
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		return h.err
	}
	h.sessions[fd] = s
	h.mu.Unlock()
	if err := unix.EpollCtl(h.epfd, unix.EPOLL_CTL_ADD, int(fd), &unix.EpollEvent{Events: unix.EPOLLIN, Fd: fd}); err != nil {
		h.remove(s)
		return fmt.Errorf("seccomp observer: epoll_ctl: %w", err)
	}
	return nil
}

// remove stops answering s; an answer in progress finishes first.
func (h *hub) remove(s *Session) {
	fd := int32(s.listener)
	h.mu.Lock()
	if h.sessions[fd] == s {
		delete(h.sessions, fd)
		unix.EpollCtl(h.epfd, unix.EPOLL_CTL_DEL, int(fd), nil)
	}
	h.mu.Unlock()
	s.answering.Lock()
	s.answering.Unlock()
}

// pollable hands the epoll set to Go's poller (an epoll set is itself
// pollable: readable while any of its listeners is).
func pollable(epfd int) (*os.File, syscall.RawConn, error) {
	if err := unix.SetNonblock(epfd, true); err != nil {
		return nil, nil, fmt.Errorf("making the epoll set non-blocking: %w", err)
	}
	f := os.NewFile(uintptr(epfd), "seccomp-observers")
	rc, err := f.SyscallConn()
	return f, rc, err
}

// loop drains the epoll set each time Go's poller finds it readable.
func (h *hub) loop(rc syscall.RawConn) {
	events := make([]unix.EpollEvent, 16)
	var failed error
	err := rc.Read(func(fd uintptr) bool {
		for {
			n, err := unix.EpollWait(int(fd), events, 0)
			switch {
			case err == unix.EINTR:
				continue
			case err != nil:
				failed = err
				return true
			case n == 0:
				return false // wait in the poller
			}
			for _, ev := range events[:n] {
				h.serve(ev)
			}
		}
	})
	if failed == nil {
		failed = err
	}
	if failed == nil {
		failed = fmt.Errorf("the poller stopped waiting")
	}
	h.fail(failed)
}

// serve answers one ready listener. Holding h.mu while taking the
// session's answering lock lets remove wait for this answer. The event may
// be stale (its fd closed and reused by a later session since): what to do
// is decided by polling the fd now, never by the event's flags.
func (h *hub) serve(ev unix.EpollEvent) {
	h.mu.Lock()
	s := h.sessions[ev.Fd]
	if s == nil {
		h.mu.Unlock()
		return
	}
	s.answering.Lock()
	ready, gone := pollListener(int(ev.Fd))
	if gone {
		// No observed process left (POLLHUP): stop waking for it.
		delete(h.sessions, ev.Fd)
		unix.EpollCtl(h.epfd, unix.EPOLL_CTL_DEL, int(ev.Fd), nil)
	}
	h.mu.Unlock()
	defer s.answering.Unlock()
	// Only this goroutine receives, and it polled first: RECV does not
	// block (a notification whose caller was killed since gives ENOENT).
	if ready {
		s.answer(int(ev.Fd))
	}
}

// fail stops the hub for good: no later session can start, and the
// sessions it answered stop being watched (their watched calls get ENOSYS)
// rather than wait for an answer that will never come.
func (h *hub) fail(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.err = fmt.Errorf("seccomp observer: epoll_wait: %w", err)
	for fd, s := range h.sessions {
		delete(h.sessions, fd)
		unix.EpollCtl(h.epfd, unix.EPOLL_CTL_DEL, int(fd), nil)
		s.answering.Lock()
		unix.Close(int(fd))
		s.closed = true
		s.answering.Unlock()
	}
}

// pollListener asks a listener, without waiting, whether a notification is
// ready, and whether it is gone: no process holds its filter any more and
// nothing is left to read (hung up).
func pollListener(fd int) (ready, gone bool) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if n, _ := unix.Poll(fds, 0); n != 1 {
		return false, false
	}
	ready = fds[0].Revents&unix.POLLIN != 0
	return ready, !ready
}
