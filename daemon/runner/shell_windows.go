package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// homeEnv names the variable holding the user's home directory.
const homeEnv = "USERPROFILE"

// cmdShell matches a shell that is cmd.exe, which takes its script as npm
// gives it there: /d /s /c "script" (promise-spawn's test).
var cmdShell = regexp.MustCompile(`(?i)(?:^|[\\/])cmd(?:\.exe)?$`)

// shellCommand runs a task's script as npm does on Windows: through
// cmd.exe /d /s /c "script", the command line given as it is (cmd.exe's
// quoting is not the C runtime's that Go's escaping follows), or through
// the shell npm's script-shell names (as shell -c script, unless it is
// cmd.exe).
func shellCommand(script, shell string, env map[string]string) *exec.Cmd {
	if shell != "" && !cmdShell.MatchString(shell) {
		cmd := exec.Command(shell, "-c", script)
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		return cmd
	}
	if shell == "" {
		shell = lookupFold(env, "ComSpec")
	}
	if shell == "" {
		shell = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	cmd := exec.Command(shell)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /d /s /c "` + script + `"`}
	return cmd
}

// shellRefusal refuses what shell cannot do in dir: cmd.exe (the
// default) cannot run in a network directory.
func shellRefusal(shell, dir string) error {
	if shell != "" && !cmdShell.MatchString(shell) {
		return nil
	}
	return networkDirRefusal(dir)
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
