package runner

import (
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
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
var jobs sync.Map // int -> windows.Handle

// ownGroup makes a process start in a console process group of its own,
// which a Ctrl+Break event can be aimed at.
func ownGroup(attr *syscall.SysProcAttr) {
	attr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// ownSession makes a process start in a process group of its own.
func ownSession() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// holdTree puts the started process pid in a new job that kills all its
// processes when vx lets go of it (or ends).
func holdTree(pid int) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	_, err = windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err == nil {
		err = assign(job, pid)
	}
	if err != nil {
		windows.CloseHandle(job)
		return
	}
	jobs.Store(pid, job)
}

// assign puts process pid in job.
func assign(job windows.Handle, pid int) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(p)
	return windows.AssignProcessToJobObject(job, p)
}

// releaseTree kills what is left in the job of pid and lets go of it.
func releaseTree(pid int) {
	if h, ok := jobs.LoadAndDelete(pid); ok {
		_ = windows.TerminateJobObject(h.(windows.Handle), 1)
		_ = windows.CloseHandle(h.(windows.Handle))
	}
}

// signalGroup stops the task whose first process is pgid: SIGTERM as a
// Ctrl+Break event to its console process group, anything else by ending
// every process of its job (or, in a process holding no job, such as the
// watchdog, the process itself).
func signalGroup(pgid int, sig syscall.Signal) {
	if sig == syscall.SIGTERM {
		_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pgid))
		return
	}
	if h, ok := jobs.Load(pgid); ok {
		_ = windows.TerminateJobObject(h.(windows.Handle), 1)
		return
	}
	killPid(pgid)
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodUserTime, ThisPeriodKernelTime int64
	TotalPageFaults, TotalProcesses, ActiveProcesses, TotalTerminated        uint32
}

// groupAlive says whether a process of the task's job is still there.
func groupAlive(pgid int) bool {
	h, ok := jobs.Load(pgid)
	if !ok {
		return false
	}
	var info jobAccounting
	err := windows.QueryInformationJobObject(h.(windows.Handle), windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err == nil && info.ActiveProcesses > 0
}

// killGroup asks the task to stop, then ends what is left.
func killGroup(pgid int) {
	signalGroup(pgid, syscall.SIGTERM)
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if !groupAlive(pgid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
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
