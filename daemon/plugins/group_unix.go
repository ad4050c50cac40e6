//go:build unix

package plugins

import (
	"os/exec"
	"syscall"
)

// runTree runs cmd as the leader of a process group of its own: its
// cancellation kills the whole group, and what is left of the group once
// cmd has been waited for (a process the plugin started and did not wait
// for) is killed then. Nothing the plugin started outlives the request.
func runTree(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return err
}
