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
// Ctrl+C there does not reach it. It inherits no handle of vx's but the
// three Start gives it (NUL and its output file): Go names them in the
// process's explicit handle list, so `vx mcp`'s stdio is not held open by
// the vxd it started.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
}
