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

// killGroup kills what is left of cmd's process group once it has been
// waited for: a process the plugin started and did not wait for.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
