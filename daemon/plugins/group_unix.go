//go:build unix

package plugins

import (
	"os/exec"
	"syscall"
	"time"

	"github.com/vzn/vx/internal/procmark"
)

// runTree runs cmd, whose environment carries m, as the leader of a
// process group of its own: its cancellation kills the whole group, and
// once cmd has been waited for, what is left of the group (a process the
// plugin started and did not wait for) is killed, and so is what carries
// m outside the group (a child the plugin started in a session or group
// of its own, internal/procmark). Nothing the plugin started outlives the
// request.
func runTree(cmd *exec.Cmd, m procmark.Mark) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	since := time.Now()
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		procmark.Sweep(m, cmd.Process.Pid, since)
	}
	return err
}
