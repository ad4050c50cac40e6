package sandbox

import (
	"golang.org/x/sys/unix"
)

// A forked task's notifications are answered by the goroutine waiting for
// it, not by the hub, from Wait on for as long as the task's first process
// lives (before Wait the hub answers them: a started task runs whether or
// not Wait has been called, as exec.Cmd's does). That
// goroutine blocks in poll(2) on the task's listener and pidfd, and the
// listener is set to wake its waiter on the CPU of the process that made
// the call (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6), which yields
// to it: a notification costs two direct switches on one CPU. Through the
// hub it cost three wake-ups, each waiting for a CPU of its own on a busy
// machine (perf sched: about 0.1 ms each on two cores running two tasks),
// and a cold 200-task run's tasks lasted about 1 ms longer for their two
// notifications. Processes of the task that outlive its first one are
// answered by the hub from then on, until Finish.
//
// A task without an observer makes no notification and is waited for in
// waitid, as os/exec does. Neither kind is waited for in Go's poller: the
// kernel wakes a thread blocked in poll(2) or waitid itself at the exit,
// where the poller's wake-up came through the scheduler (cold 200-task
// run, Landlock alone, ext4: 1.15x the unconfined wall time waited for in
// the poller, 1.07x in waitid).

// ioctlNotifSetFlags is SECCOMP_IOCTL_NOTIF_SET_FLAGS, and
// userNotifFDSyncWakeUp its one flag.
const (
	ioctlNotifSetFlags    = 0x40082104
	userNotifFDSyncWakeUp = 1
)

// wakeOnCaller asks the kernel to wake the listener's waiter on the
// caller's CPU; a kernel without the flag (before 6.6) wakes it as any
// other, which is slower but as correct.
func wakeOnCaller(listener int) {
	unix.Syscall(unix.SYS_IOCTL, uintptr(listener), ioctlNotifSetFlags, userNotifFDSyncWakeUp)
}

// takeFromHub stops the hub answering s's listener (after the answer in
// progress, if any) for the waiter to answer it. false: the hub failed
// and closed it, and there is nothing to answer.
func (s *Session) takeFromHub() bool {
	observers.remove(s)
	s.answering.Lock()
	defer s.answering.Unlock()
	return !s.closed
}

// serveUntilExit answers s's notifications until the process behind pidfd
// has exited, then hands the listener to the hub if any process of the
// task still holds it. If the hub cannot take it, the session is halted:
// a process left gets ENOSYS from a watched call rather than wait for an
// answer that would never come.
func (s *Session) serveUntilExit(pidfd int) {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}, {Fd: int32(s.listener), Events: unix.POLLIN}}
	for {
		for i := range fds {
			fds[i].Revents = 0
		}
		if _, err := unix.Poll(fds, -1); err == unix.EINTR {
			continue
		} else if err != nil {
			break
		}
		if len(fds) > 1 && fds[1].Revents&unix.POLLIN != 0 {
			s.answering.Lock()
			s.answer(s.listener)
			s.answering.Unlock()
			continue
		}
		if fds[0].Revents != 0 {
			break // exited
		}
		// Hung up while the process lives (it can make no watched call
		// any more): wait for its exit alone.
		fds = fds[:1]
	}
	if _, gone := pollListener(s.listener); gone {
		return // no process of the task is left holding the filter
	}
	if observers.add(s) != nil {
		s.halt()
	}
}
