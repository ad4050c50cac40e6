package runner

import (
	"reflect"
	"testing"
)

// TestShellCommandForScriptShell: a script-shell naming cmd.exe (any
// path, any case) takes the script in cmd.exe's /d /s /c form, as npm
// gives it; another shell gets -c script; none means ComSpec's cmd.exe.
func TestShellCommandForScriptShell(t *testing.T) {
	env := map[string]string{"ComSpec": `C:\windows\system32\cmd.exe`}
	for _, sh := range []string{"", `C:\Windows\System32\CMD.EXE`, `c:/windows/system32/cmd`, "cmd"} {
		cmd := shellCommand("echo hi", sh, env)
		if cmd.SysProcAttr == nil || cmd.SysProcAttr.CmdLine != `cmd.exe /d /s /c "echo hi"` {
			t.Errorf("script-shell %q: command line %+v, want cmd.exe /d /s /c", sh, cmd.SysProcAttr)
		}
	}
	bash := `C:\Program Files\Git\bin\bash.exe`
	cmd := shellCommand("echo hi && ls", bash, env)
	if want := []string{bash, "-c", "echo hi && ls"}; !reflect.DeepEqual(cmd.Args, want) || cmd.SysProcAttr.CmdLine != "" {
		t.Errorf("script-shell bash.exe: args %q (command line %q), want %q", cmd.Args, cmd.SysProcAttr.CmdLine, want)
	}
	if shellRefusal(bash, `\\server\share\ws`) != nil || shellRefusal("", `\\server\share\ws`) == nil {
		t.Errorf("a share's directory must be refused for cmd.exe alone")
	}
}
