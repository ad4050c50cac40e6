package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// scriptShellEnv is npm's script-shell setting as an environment variable
// (npm_config_script_shell), which npm honours too.
const scriptShellEnv = "npm_config_script_shell"

// shellCommand runs a task's script as npm does on Windows: through
// cmd.exe /d /s /c "script", the command line given as it is (cmd.exe's
// quoting is not the C runtime's that Go's escaping follows), or through
// the shell npm_config_script_shell names (as shell -c script).
func shellCommand(script string, env map[string]string) *exec.Cmd {
	if sh := lookupFold(env, scriptShellEnv); sh != "" {
		cmd := exec.Command(sh, "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		return cmd
	}
	comspec := lookupFold(env, "ComSpec")
	if comspec == "" {
		comspec = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	cmd := exec.Command(comspec)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /d /s /c "` + script + `"`}
	return cmd
}

// osEnvNames are the variables Windows programs need (cmd.exe, node and
// the C runtime read them), passed from vx's environment.
var osEnvNames = []string{
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT", "TEMP", "TMP", "USERPROFILE", "USERNAME",
	"HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "ProgramData", "ProgramFiles", "ProgramFiles(x86)",
	"ProgramW6432", "CommonProgramFiles", "CommonProgramFiles(x86)", "NUMBER_OF_PROCESSORS",
	"PROCESSOR_ARCHITECTURE", "OS", "COMPUTERNAME",
}

// envPath is the name and value of the PATH variable in env, whatever
// its case (Windows keeps it as Path).
func envPath(env map[string]string) (string, string) {
	for k, v := range env {
		if strings.EqualFold(k, "PATH") {
			return k, v
		}
	}
	return "PATH", ""
}

// lookupFold is env's value of name, matched without regard to case as
// Windows matches names.
func lookupFold(env map[string]string, name string) string {
	if v, ok := env[name]; ok {
		return v
	}
	for k, v := range env {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
