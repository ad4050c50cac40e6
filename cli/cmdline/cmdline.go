// Package cmdline is what the command lines of vx (cli/vx), vxd (cli/vxd)
// and vx-platform (platform/cli) share: where a command reads and writes
// (IO), the one flag binder (Bind: flags declared as struct tags), the
// errors that carry an exit code, and the renderers of times, durations
// and JSON. It imports nothing of the daemon, so each binary links only
// what its own verbs add on top.
package cmdline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// IO is where a command reads and writes.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	Dir      string // working directory; "" = os.Getwd
	Environ  []string
}

// WorkingDir is the directory the command runs in (IO.Dir, else the
// process's).
func (s *IO) WorkingDir() string {
	if s.Dir != "" {
		return s.Dir
	}
	d, _ := os.Getwd()
	return d
}

// Environment is the command's environment (IO.Environ, else the
// process's).
func (s *IO) Environment() []string {
	if s.Environ != nil {
		return s.Environ
	}
	return os.Environ()
}

// exitError carries an exit code without a message of its own.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError is a refusal of the command line itself (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// UsageError is a refusal of the command line itself (exit 2).
func UsageError(msg string) error { return usageError{msg} }

// ExitCode ends the command with code and no message of its own.
func ExitCode(code int) error { return exitError{code} }

// Exit maps a verb's error to the process exit code, printing its message
// prefixed with the program's name: 0 without error, the code of an
// ExitCode, 2 for a UsageError, else 1.
func Exit(s *IO, prog string, err error) int {
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintf(s.Err, "%s: %s\n", prog, err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// WriteJSON writes v indented, HTML left unescaped, as every --format json does.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Ms renders milliseconds for people: 850ms, 2.5s.
func Ms(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

// Time renders a time for people, in local time to the second.
func Time(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }
