package cli

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// What vxd's command line (cli/vxd) shares with vx's: the flag parser, the
// errors that carry an exit code, and the renderers of times and JSON. It
// is exported here, not in a package of its own, so that vx's verbs keep
// their spelling; cli imports nothing of the daemon's server, so vx links
// none of it while vxd adds it on top.

// Flag declares one flag of a vxd verb: a boolean, or one taking a value
// (Arg names it in the usage text).
type Flag struct {
	Value bool
	Arg   string
	Help  string
}

// Args is a parsed command line.
type Args struct{ a *args }

// ParseFlags parses argv with vx's parser: flags anywhere among the
// positionals, "--" ends flags, unknown flags and missing values refused.
// A refusal is a UsageError.
func ParseFlags(verb string, argv []string, flags map[string]Flag) (*Args, error) {
	specs := make(map[string]flagSpec, len(flags))
	for name, f := range flags {
		kind := boolFlag
		if f.Value {
			kind = valueFlag
		}
		specs[name] = flagSpec{kind: kind, arg: f.Arg, help: f.Help}
	}
	a, err := parseArgs(verb, argv, specs)
	if err != nil {
		return nil, UsageError(err.Error())
	}
	return &Args{a}, nil
}

// Has reports whether the flag was given.
func (x *Args) Has(name string) bool { return x.a.has(name) }

// Str is the flag's last value ("" when not given).
func (x *Args) Str(name string) string { return x.a.str(name) }

// Bool is a boolean flag's value.
func (x *Args) Bool(name string) bool { return x.a.bool(name) }

// Pos are the positional arguments.
func (x *Args) Pos() []string { return x.a.pos }

// Usage is the verb's usage text with every flag.
func (x *Args) Usage(synopsis string) string { return x.a.usage(synopsis) }

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
func WriteJSON(w io.Writer, v any) error { return writeJSON(w, v) }

// Ms renders milliseconds for people: 850ms, 2.5s.
func Ms(ms int64) string { return fmtMs(ms) }

// Time renders a time for people, in local time to the second.
func Time(t time.Time) string { return fmtTime(t) }

// WorkingDir is the directory the command runs in (IO.Dir, else the
// process's).
func (s *IO) WorkingDir() string { return s.dir() }
