package runner

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/vzn/vx/internal/jobobject"
)

// Windows has no process groups to signal: each task's first process is
// put in a Job Object of its own as soon as it started (holdTree), which
// its children join as they start. The job is made to kill every process
// in it when its last handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE):
// vx holds that handle, so when vx ends, however it ends, Windows kills
// the tasks. (A child the first process starts before it joined the job
// is not in it: the window is the few instructions between CreateProcess
// and AssignProcessToJobObject, before the task's shell has run.)

// jobs holds each running task's job, by its first process's id.
var jobs sync.Map // int -> *jobobject.Job

// ownGroup makes a process start in a console process group of its own,
// which a Ctrl+Break event can be aimed at. Where vx has no console (vxd,
// started detached), Windows would give each task's console program a new
// console window of its own: the task gets a console without a window.
func ownGroup(attr *syscall.SysProcAttr) {
	attr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
	if !hasConsole() {
		attr.CreationFlags |= windows.CREATE_NO_WINDOW
	}
}

// getConsoleProcessList is kernel32's GetConsoleProcessList, which
// x/sys/windows does not wrap.
var getConsoleProcessList = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetConsoleProcessList")

// hasConsole says whether this process is attached to a console: one
// process at least (this one) is.
func hasConsole() bool {
	var pid uint32
	n, _, _ := getConsoleProcessList.Call(uintptr(unsafe.Pointer(&pid)), 1)
	return n > 0
}

// ownSession makes a process start in a process group of its own.
func ownSession() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// holdTree puts the started process pid in a new job that kills all its
// processes when vx lets go of it (or ends).
func holdTree(pid int) {
	if job, err := jobobject.Hold(pid); err == nil {
		jobs.Store(pid, job)
	}
}

// releaseTree kills what is left in the job of pid and lets go of it.
func releaseTree(pid int) {
	if j, ok := jobs.LoadAndDelete(pid); ok {
		j.(*jobobject.Job).Close()
	}
}

// signalGroup stops the task whose first process is pgid: SIGTERM as a
// Ctrl+Break event to its console process group, anything else by ending
// every process of its job (or, in a process holding no job, such as the
// watchdog, the process itself). Where no event can be sent (vx has no
// console), SIGTERM ends the job too: the task would wait for nothing.
func signalGroup(pgid int, sig syscall.Signal) {
	if sig == syscall.SIGTERM && windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pgid)) == nil {
		return
	}
	if j, ok := jobs.Load(pgid); ok {
		j.(*jobobject.Job).Terminate()
		return
	}
	killPid(pgid)
}

// groupAlive says whether a process of the task's job is still there.
func groupAlive(pgid int) bool {
	j, ok := jobs.Load(pgid)
	return ok && j.(*jobobject.Job).Active()
}

// killGroup asks the task to stop (a Ctrl+Break event), then ends what
// is left after a grace period, or at once when Ctrl+C is pressed again
// meanwhile (the first one stopped the run).
func killGroup(pgid int) {
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt)
	defer signal.Stop(again)
	signalGroup(pgid, syscall.SIGTERM)
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		select {
		case <-again:
			deadline = time.Now()
		case <-time.After(20 * time.Millisecond):
		}
	}
	signalGroup(pgid, syscall.SIGKILL)
}

// killPid ends process pid.
func killPid(pid int) {
	p, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return
	}
	_ = windows.TerminateProcess(p, 1)
	_ = windows.CloseHandle(p)
}

// cpuTime is the user and kernel time ru counts.
func cpuTime(ru *syscall.Rusage) time.Duration {
	ticks := func(ft syscall.Filetime) int64 { return int64(ft.HighDateTime)<<32 | int64(ft.LowDateTime) }
	return time.Duration((ticks(ru.UserTime) + ticks(ru.KernelTime)) * 100)
}
