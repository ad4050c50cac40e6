package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The forked start: the task is cloned from whatever thread the calling
// goroutine runs on, sharing vx's memory until it execs (as os/exec does),
// and the child confines itself between the clone and the exec: no thread
// of vx is confined, locked or thrown away per task. Go runs no code of
// ours there, so this file has its own clone and exec: the child makes only
// raw system calls on memory prepared before the clone, allocates nothing
// and grows no stack (the runtime's fork hooks forbid it).

// errNoFork says this start cannot clone the task itself: on an
// architecture without vfork3, or where the kernel (or a container's
// filter) refuses clone3. The session is then started from a confined
// thread.
var errNoFork = errors.New("no forked start here")

// cloneArgs is clone3's struct clone_args.
type cloneArgs struct {
	flags, pidfd, childTID, parentTID, exitSignal, stack, stackSize, tls, setTID, setTIDSize, cgroup uint64
}

// What a child that could not exec was doing: the first half of what it
// writes to the status pipe.
const (
	stageSetpgid uint32 = iota + 1
	stageChdir
	stageDeathSignal
	stageStdio
	stageRlimit
	stageNoNewPrivs
	stageLandlock
	stageSeccomp
	stageUnshare
	stageExec
)

var stageNames = map[uint32]string{
	stageSetpgid: "setpgid", stageChdir: "chdir", stageDeathSignal: "setting the parent-death signal",
	stageStdio: "dup3 of its standard descriptors", stageRlimit: "restoring its RLIMIT_NOFILE", stageNoNewPrivs: "setting no_new_privs",
	stageLandlock: "landlock_restrict_self", stageSeccomp: "installing the seccomp observer",
	stageUnshare: "unsharing its descriptor table", stageExec: "execve",
}

// childFailure is what a child that could not exec writes to its status
// pipe (which closes on a successful exec).
type childFailure struct{ stage, errno uint32 }

// forkArgs is everything the child reads, prepared before the clone.
type forkArgs struct {
	clone     cloneArgs
	path      *byte
	argv, env []*byte      // nil-terminated
	dir       *byte        // nil: vx's own
	stdio     [3]int       // each 3 or more
	nofile    *unix.Rlimit // the limit os/exec would give the task; nil: vx's own
	setpgid   bool
	deathSig  uintptr
	ppid      uintptr
	ruleset   int             // -1: no Landlock
	prog      *unix.SockFprog // nil: no observer
	listener  int32           // written by the child: its listener, in vx's descriptor table
	pidfd     int32           // written by clone3 (CLONE_PIDFD, through clone.pidfd): the task, for Go's poller
	status    int             // the status pipe's write end
}

// forkable says whether the forked start honours all of cmd: the runner's
// process group, parent-death signal and cgroup, standard streams and
// environment. A command asking for more (another SysProcAttr setting,
// ExtraFiles, a context) is started from a confined thread by os/exec,
// which honours it all.
func forkable(cmd *exec.Cmd) bool {
	if cmd.Cancel != nil || len(cmd.ExtraFiles) > 0 {
		return false // exec.CommandContext's context; more descriptors
	}
	attr := cmd.SysProcAttr
	if attr == nil {
		return true
	}
	rest := *attr
	if rest.Setpgid && rest.Pgid == 0 {
		rest.Setpgid = false
	}
	rest.Pdeathsig, rest.UseCgroupFD, rest.CgroupFD = 0, false, 0
	return reflect.DeepEqual(rest, syscall.SysProcAttr{})
}

// prepare fills the clone arguments, the command line and the
// environment from cmd.
func prepare(cmd *exec.Cmd, a *forkArgs) error {
	if cmd.Err != nil {
		return cmd.Err
	}
	if cmd.Process != nil {
		return errors.New("exec: already started")
	}
	if !canFork || !forkable(cmd) {
		return errNoFork
	}
	var err error
	if a.path, err = syscall.BytePtrFromString(cmd.Path); err != nil {
		return err
	}
	if a.argv, err = syscall.SlicePtrFromStrings(cmd.Args); err != nil {
		return err
	}
	if a.env, err = syscall.SlicePtrFromStrings(cmd.Environ()); err != nil {
		return err
	}
	if cmd.Dir != "" {
		if a.dir, err = syscall.BytePtrFromString(cmd.Dir); err != nil {
			return err
		}
	}
	a.nofile = taskNofile()
	a.clone.flags = unix.CLONE_VM | unix.CLONE_VFORK
	if a.prog != nil {
		// The child creates its listener in vx's descriptor table, and
		// the task's waiter polls its pidfd with the listener
		// (waiter_linux.go). clone.pidfd, an address held as an integer, is set by
		// forkChild at the last moment: a goroutine's stack, where a may
		// be, moves when it grows or when the collector shrinks it.
		a.clone.flags |= unix.CLONE_FILES | unix.CLONE_PIDFD
	}
	a.clone.exitSignal = uint64(syscall.SIGCHLD)
	if attr := cmd.SysProcAttr; attr != nil {
		a.setpgid = attr.Setpgid
		if attr.Pdeathsig != 0 {
			a.deathSig, a.ppid = uintptr(attr.Pdeathsig), uintptr(os.Getpid())
		}
		if attr.UseCgroupFD {
			a.clone.flags |= unix.CLONE_INTO_CGROUP
			a.clone.cgroup = uint64(attr.CgroupFD)
		}
	}
	return nil
}

// childStatus reads the status pipe: nil once it closed on the exec, else
// what the child failed at (the child is then reaped).
func childStatus(fd, pid int) error {
	var fail childFailure
	buf := (*[unsafe.Sizeof(fail)]byte)(unsafe.Pointer(&fail))[:]
	n, err := 0, error(nil)
	for {
		n, err = unix.Read(fd, buf)
		if err != unix.EINTR {
			break
		}
	}
	if err == nil && n == 0 {
		return nil
	}
	reap(pid)
	if err != nil {
		return fmt.Errorf("starting the task: reading its status: %w", err)
	}
	if n != len(buf) {
		return fmt.Errorf("starting the task: a short status (%d bytes)", n)
	}
	what := stageNames[fail.stage]
	if what == "" {
		what = fmt.Sprintf("step %d", fail.stage)
	}
	return fmt.Errorf("starting the task: %s: %w", what, syscall.Errno(fail.errno))
}

// reap waits for the child pid to end and reaps it.
func reap(pid int) {
	var ws unix.WaitStatus
	for {
		if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
			return
		}
	}
}

// fork starts cmd as a forked session: errNoFork when this host cannot
// (nothing was started then, and cmd is as it was).
func (s *Session) fork(cmd *exec.Cmd, rfd int, prog *unix.SockFprog) error {
	a := &forkArgs{ruleset: rfd, prog: prog, listener: -1, pidfd: -1, status: -1}
	if err := prepare(cmd, a); err != nil {
		return err
	}
	t := &taskIO{}
	var err error
	if a.stdio, err = t.stdio(cmd); err != nil {
		t.abandon()
		return err
	}
	var status [2]int
	if err := unix.Pipe2(status[:], unix.O_CLOEXEC); err != nil {
		t.abandon()
		return fmt.Errorf("starting the task: pipe2: %w", err)
	}
	a.status = status[1]
	pid, err := clone(a)
	unix.Close(status[1])
	if err == nil {
		err = childStatus(status[0], pid)
	}
	unix.Close(status[0])
	t.started()
	if err == nil && a.pidfd >= 0 {
		t.exited = os.NewFile(uintptr(a.pidfd), "task")
	} else if a.pidfd >= 0 {
		unix.Close(int(a.pidfd))
	}
	if err == nil && prog != nil {
		// Answered by the hub until Wait takes the listener over, then by
		// the task's waiter until its first process exits
		// (waiter_linux.go): the task runs whether or not Wait is called.
		s.listener = int(a.listener)
		wakeOnCaller(s.listener)
		if err = observers.add(s); err != nil {
			// Nothing would answer its watched calls: it must not run on.
			unix.Kill(pid, unix.SIGKILL)
			reap(pid)
		}
	}
	if err != nil {
		// A child that failed after installing its filter left the
		// listener in vx's table.
		if a.listener >= 0 {
			unix.Close(int(a.listener))
		}
		s.listener = -1
		if t.exited != nil {
			t.exited.Close()
		}
		t.abandon()
		return err
	}
	// A pidfd-backed handle: the child is not reaped yet, so its pid is
	// still its own.
	cmd.Process, _ = os.FindProcess(pid)
	t.copy()
	s.io = t
	return nil
}

var (
	nofileOnce sync.Once
	nofile     *unix.Rlimit
)

// taskNofile is the RLIMIT_NOFILE os/exec gives a child: Go raises vx's
// own soft limit at start-up and restores the one vx was started with in
// every child, a value it keeps to itself. So it is read, once, from a
// child started by os/exec; nil when vx's own limit is what a child gets
// (or the child could not be read).
func taskNofile() *unix.Rlimit {
	nofileOnce.Do(func() {
		var own unix.Rlimit
		if unix.Getrlimit(unix.RLIMIT_NOFILE, &own) != nil || own.Cur == own.Max {
			return
		}
		cmd := exec.Command("/bin/sh", "-c", "read _")
		stdin, err := cmd.StdinPipe()
		if err != nil || cmd.Start() != nil {
			return
		}
		var lim unix.Rlimit
		if unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_NOFILE, nil, &lim) == nil && lim != own {
			nofile = &lim
		}
		stdin.Close()
		cmd.Wait()
	})
	return nofile
}
