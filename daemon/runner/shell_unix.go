//go:build unix

package runner

import (
	"os/exec"
	"syscall"
)

// homeEnv names the variable holding the user's home directory.
const homeEnv = "HOME"

// shellCommand runs a task's script as npm does here: /bin/sh -c, or
// shell -c when npm's script-shell names one.
func shellCommand(script, shell string, _ map[string]string) *exec.Cmd {
	if shell == "" {
		shell = "/bin/sh"
	}
	cmd := exec.Command(shell, "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	return cmd
}

// shellRefusal refuses what shell cannot do in dir: nothing here.
func shellRefusal(string, string) error { return nil }

// osEnvNames are the variables a task gets from vx's environment beyond
// the base set: none here.
var osEnvNames []string

// envPath is the name and value of the PATH variable in env.
func envPath(env map[string]string) (string, string) { return "PATH", env["PATH"] }
