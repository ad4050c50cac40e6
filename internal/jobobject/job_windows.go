package jobobject

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// Job is a held process tree. A nil *Job holds nothing: its methods do
// nothing, so a caller that could not hold a process goes on without.
type Job struct{ h windows.Handle }

// Hold puts process pid in a new job that kills every process in it when
// its handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE). A process pid
// started before Hold is not in it: callers hold a process at once.
func Hold(pid int) (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, err
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	_, err = windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err == nil {
		err = assign(h, pid)
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return &Job{h: h}, nil
}

// assign puts process pid in job h.
func assign(h windows.Handle, pid int) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return err
	}
	defer windows.CloseHandle(p)
	return windows.AssignProcessToJobObject(h, p)
}

// Terminate ends every process in the job; the job stays held.
func (j *Job) Terminate() {
	if j != nil {
		_ = windows.TerminateJobObject(j.h, 1)
	}
}

// Close ends what is left in the job and lets go of it.
func (j *Job) Close() {
	if j != nil {
		_ = windows.TerminateJobObject(j.h, 1)
		_ = windows.CloseHandle(j.h)
	}
}

// accounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type accounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodUserTime, ThisPeriodKernelTime int64
	TotalPageFaults, TotalProcesses, ActiveProcesses, TotalTerminated        uint32
}

// Active says whether a process of the job is still there.
func (j *Job) Active() bool {
	if j == nil {
		return false
	}
	var info accounting
	err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err == nil && info.ActiveProcesses > 0
}
