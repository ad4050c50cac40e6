//go:build unix

package client

import (
	"os/exec"
	"syscall"
)

// exeSuffix ends the name of an executable: none on Unix.
const exeSuffix = ""

// detach makes cmd start in a session of its own, so that vxd outlives
// the terminal and the process group of the vx that started it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
