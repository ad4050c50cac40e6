package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vzn/vx/internal/anypath"
)

// The names npm reads its script-shell setting under: the variable (which
// npm reads in any case), the .npmrc key, and the variable naming the
// user's .npmrc in place of the one in the home directory.
const (
	scriptShellEnv = "npm_config_script_shell"
	scriptShellKey = "script-shell"
	userConfigEnv  = "npm_config_userconfig"
)

// maxNpmrc bounds the bytes of one .npmrc read for the setting.
const maxNpmrc = 1 << 20

// scriptShell is the shell npm's script-shell setting names for a task
// run in dir of the workspace at root: the npm_config_script_shell
// variable, else the first .npmrc that sets it, the project's, the
// workspace root's, then the user's; "" when none does (the OS's own:
// sh, or cmd.exe on Windows). env is the environment of the run.
func scriptShell(env map[string]string, dir, root string) string {
	if sh := lookupFold(env, scriptShellEnv); sh != "" {
		return sh
	}
	files := []string{filepath.Join(dir, ".npmrc")}
	if dir != root {
		files = append(files, filepath.Join(root, ".npmrc"))
	}
	if user := lookupFold(env, userConfigEnv); user != "" {
		files = append(files, user)
	} else if home := lookupFold(env, homeEnv); home != "" {
		files = append(files, filepath.Join(home, ".npmrc"))
	}
	for _, f := range files {
		if sh := npmrcValue(f, scriptShellKey, env); sh != "" {
			return sh
		}
	}
	return ""
}

// npmrcEnvRef is a ${NAME} reference in an .npmrc value, which npm
// replaces with the variable's value.
var npmrcEnvRef = regexp.MustCompile(`\$\{([^${}]+)\}`)

// npmrcValue is key's value in the .npmrc file (ini: "key = value",
// ";" and "#" comment lines, the value optionally quoted, ${NAME}
// replaced from env); "" when the file or the key is missing.
func npmrcValue(file, key string, env map[string]string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, maxNpmrc))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxNpmrc)
	val := ""
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == key {
			val = unquote(strings.TrimSpace(v)) // the last one wins, as in npm
		}
	}
	return npmrcEnvRef.ReplaceAllStringFunc(val, func(ref string) string {
		return lookupFold(env, ref[2:len(ref)-1])
	})
}

// unquote drops the double or single quotes around an .npmrc value.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// networkDirRefusal refuses a task directory on a network share
// (\\server\share\...) for cmd.exe, which cannot take one as its
// current directory: it says so and runs the script in the Windows
// directory instead.
func networkDirRefusal(dir string) error {
	if !strings.HasPrefix(anypath.Volume(dir), `\\`) {
		return nil
	}
	return fmt.Errorf("cmd.exe cannot run a script in a network directory (%s): map the share to a drive letter "+
		"(net use Z: %s) and run vx from there, or name another shell with npm's script-shell", dir, anypath.Volume(dir))
}

// lookupFold is env's value of name, matched without regard to case as
// Windows matches names (and npm its npm_config_ variables).
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
