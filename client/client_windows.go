package client

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// exeSuffix ends the name of an executable on Windows.
const exeSuffix = ".exe"

// detach makes cmd start with no console and in a process group of its
// own, so that vxd outlives the console of the vx that started it and a
// Ctrl+C there does not reach it.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
}
