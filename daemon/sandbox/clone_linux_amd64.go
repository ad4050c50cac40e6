package sandbox

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// canFork: amd64 has the forked start.
const canFork = true

//go:linkname runtime_BeforeFork syscall.runtime_BeforeFork
func runtime_BeforeFork()

//go:linkname runtime_AfterFork syscall.runtime_AfterFork
func runtime_AfterFork()

//go:linkname runtime_AfterForkInChild syscall.runtime_AfterForkInChild
func runtime_AfterForkInChild()

// vfork3 is clone3(args, size) for a child sharing the caller's memory
// (vfork_linux_amd64.s).
func vfork3(args, size uintptr) (pid, errno uintptr)

// forkChild clones the task and, in the child, sets it up, confines it
// and execs it; it returns only in the parent. Everything after
// runtime_BeforeFork is a raw system call or a nosplit runtime hook: the
// child runs on this frame, in the parent's memory, until it execs.
//
//go:noinline
//go:norace
//go:nocheckptr
func forkChild(a *forkArgs) (pid, errno uintptr) {
	var (
		r1   uintptr
		e    syscall.Errno
		i    int
		fail childFailure
	)
	runtime_BeforeFork()
	// No call from here to the clone can move this goroutine's stack
	// (they are nosplit, and signals are blocked), so the address the
	// kernel writes the pidfd to stays a's.
	if a.clone.flags&unix.CLONE_PIDFD != 0 {
		a.clone.pidfd = uint64(uintptr(unsafe.Pointer(&a.pidfd)))
	}
	pid, errno = vfork3(uintptr(unsafe.Pointer(&a.clone)), unsafe.Sizeof(a.clone))
	if errno != 0 || pid != 0 {
		return // the parent, which calls runtime_AfterFork
	}
	if a.setpgid {
		if _, _, e = syscall.RawSyscall(syscall.SYS_SETPGID, 0, 0, 0); e != 0 {
			fail.stage = stageSetpgid
			goto failed
		}
	}
	runtime_AfterForkInChild()
	if a.dir != nil {
		if _, _, e = syscall.RawSyscall(syscall.SYS_CHDIR, uintptr(unsafe.Pointer(a.dir)), 0, 0); e != 0 {
			fail.stage = stageChdir
			goto failed
		}
	}
	if a.deathSig != 0 {
		if _, _, e = syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_SET_PDEATHSIG, a.deathSig, 0, 0, 0, 0); e != 0 {
			fail.stage = stageDeathSignal
			goto failed
		}
		if r1, _, _ = syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0); r1 != a.ppid {
			r1, _, _ = syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0)
			syscall.RawSyscall(syscall.SYS_KILL, r1, a.deathSig, 0)
		}
	}
	if a.nofile != nil {
		if _, _, e = syscall.RawSyscall6(unix.SYS_PRLIMIT64, 0, unix.RLIMIT_NOFILE, uintptr(unsafe.Pointer(a.nofile)), 0, 0, 0); e != 0 {
			fail.stage = stageRlimit
			goto failed
		}
	}
	if _, _, e = syscall.RawSyscall6(syscall.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); e != 0 {
		fail.stage = stageNoNewPrivs
		goto failed
	}
	if a.ruleset >= 0 {
		if _, _, e = syscall.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(a.ruleset), 0, 0); e != 0 {
			fail.stage = stageLandlock
			goto failed
		}
	}
	if a.prog != nil {
		// The child shares vx's descriptor table until here, so the
		// listener is created in it, where vx takes it; then the child
		// takes a copy of its own. The listener is close-on-exec: the
		// task does not keep it. None of the calls from here to the exec
		// is watched, so none waits for the hub, which learns of the
		// listener only once the parent resumes.
		r1, _, e = syscall.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
			unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_SPEC_ALLOW, uintptr(unsafe.Pointer(a.prog)))
		if e != 0 {
			fail.stage = stageSeccomp
			goto failed
		}
		a.listener = int32(r1)
	}
	if a.clone.flags&unix.CLONE_FILES != 0 {
		if _, _, e = syscall.RawSyscall(syscall.SYS_UNSHARE, unix.CLONE_FILES, 0, 0); e != 0 {
			fail.stage = stageUnshare
			goto failed
		}
	}
	for i = 0; i < 3; i++ {
		if _, _, e = syscall.RawSyscall(syscall.SYS_DUP3, uintptr(a.stdio[i]), uintptr(i), 0); e != 0 {
			fail.stage = stageStdio
			goto failed
		}
	}
	_, _, e = syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(a.path)),
		uintptr(unsafe.Pointer(&a.argv[0])), uintptr(unsafe.Pointer(&a.env[0])))
	fail.stage = stageExec
failed:
	fail.errno = uint32(e)
	syscall.RawSyscall(syscall.SYS_WRITE, uintptr(a.status), uintptr(unsafe.Pointer(&fail)), unsafe.Sizeof(fail))
	for {
		syscall.RawSyscall(syscall.SYS_EXIT, 253, 0, 0)
	}
}

// clone runs forkChild holding ForkLock, as the standard library's forks
// do, so that no descriptor opened meanwhile without close-on-exec leaks
// into the task.
func clone(a *forkArgs) (int, error) {
	syscall.ForkLock.Lock()
	pid, errno := forkChild(a)
	runtime_AfterFork()
	syscall.ForkLock.Unlock()
	switch {
	case errno == uintptr(syscall.ENOSYS):
		return 0, errNoFork
	case errno != 0:
		return 0, fmt.Errorf("starting the task: clone3: %w", syscall.Errno(errno))
	}
	return int(pid), nil
}
