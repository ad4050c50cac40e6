package ops

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// ownGroup makes the child start in a console process group of its own,
// which a Ctrl+Break event can be aimed at.
func ownGroup() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// signalGroup interrupts the child pgid (SIGINT: a Ctrl+Break event to its
// process group, which Go delivers as os.Interrupt) or ends it. The child
// vx's tasks are in Job Objects it holds: they end with it.
func signalGroup(pgid int, sig syscall.Signal) {
	if sig == syscall.SIGINT {
		_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pgid))
		return
	}
	p, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pgid))
	if err != nil {
		return
	}
	_ = windows.TerminateProcess(p, 1)
	_ = windows.CloseHandle(p)
}

// passFile lets cmd inherit f's handle (ExtraFiles is not supported on
// Windows), and answers the handle's value, which the child's is too.
func passFile(cmd *exec.Cmd, f *os.File) string {
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, syscall.Handle(f.Fd()))
	return strconv.FormatUint(uint64(f.Fd()), 10)
}

// inherited is the file this process inherited as handle n, kept from
// the processes it starts.
func inherited(n int, name string) *os.File {
	_ = windows.SetHandleInformation(windows.Handle(n), windows.HANDLE_FLAG_INHERIT, 0)
	return os.NewFile(uintptr(n), name)
}

// isPipe says whether handle n is a pipe.
func isPipe(n int) bool {
	t, err := windows.GetFileType(windows.Handle(n))
	return err == nil && t == windows.FILE_TYPE_PIPE
}

// writable says why this user cannot create files in dir: Windows'
// access lists decide, so a file is created there and removed.
func writable(dir string) error {
	f, err := os.CreateTemp(dir, ".vx-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
