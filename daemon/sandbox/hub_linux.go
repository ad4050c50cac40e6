package sandbox

import (
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// hub answers the notifications of every session of this process from one
// goroutine blocked in epoll_wait. A session only adds its listener and
// removes it: no goroutine, thread or wakeup of its own, so a task that
// makes no watched call costs the observer two epoll_ctl calls.
type hub struct {
	once     sync.Once
	epfd     int
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
		go h.loop()
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

func (h *hub) loop() {
	events := make([]unix.EpollEvent, 16)
	for {
		n, err := unix.EpollWait(h.epfd, events, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			h.fail(err)
			return
		}
		for _, ev := range events[:n] {
			h.serve(ev)
		}
	}
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
	fds := []unix.PollFd{{Fd: ev.Fd, Events: unix.POLLIN}}
	n, _ := unix.Poll(fds, 0)
	ready := n == 1 && fds[0].Revents&unix.POLLIN != 0
	if n == 1 && !ready {
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
