//go:build unix

package migrate

import (
	"os/exec"
	"syscall"
)

// processGroup starts cmd in a process group of its own and, when its
// context ends, kills the whole group: Nx starts workers for its plugins.
func processGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
