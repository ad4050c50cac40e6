//go:build unix

package runner

import (
	"os/exec"
	"syscall"
)

// shellCommand runs a task's script as npm does here: /bin/sh -c.
func shellCommand(script string, _ map[string]string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	return cmd
}

// osEnvNames are the variables a task gets from vx's environment beyond
// the base set: none here.
var osEnvNames []string

// envPath is the name and value of the PATH variable in env.
func envPath(env map[string]string) (string, string) { return "PATH", env["PATH"] }
