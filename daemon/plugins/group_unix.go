//go:build unix

package plugins

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd as the leader of a process group of its own and
// makes its cancellation kill the whole group, so that nothing the plugin
// started outlives the request.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
