package cmdline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// kind says how a flag takes its value.
type kind int

const (
	kindBool     kind = iota // --x
	kindValue                // --x V or --x=V
	kindOptional             // --x or --x=V (never the next argument)
	kindMulti                // --x V, repeatable
)

// spec declares one flag: how it takes its value, its help text, and
// (for a flag with a value) the name of the value in the usage text.
type spec struct {
	kind kind
	Help string
	Arg  string
}

// Args is a verb's parsed command line.
type Args struct {
	prog  string // "vx" or "vxd": messages and the usage name "prog verb"
	verb  string
	specs map[string]spec
	set   map[string][]string
	pos   []string
	// next maps an optional-value flag given without "=" to the index in
	// pos of the argument that followed it, if any (see TakeRef).
	next map[string]int
}

// parse parses the flags of prog's verb anywhere among positionals; "--"
// ends flags. Unknown flags and missing values are errors naming the flag.
func parse(prog, verb string, argv []string, specs map[string]spec) (*Args, error) {
	specs["help"] = spec{kind: kindBool, Help: "print this help"}
	a := &Args{prog: prog, verb: verb, specs: specs, set: map[string][]string{}, next: map[string]int{}}
	for i := 0; i < len(argv); i++ {
		s := argv[i]
		if s == "--" {
			a.pos = append(a.pos, argv[i+1:]...)
			break
		}
		if !strings.HasPrefix(s, "-") || s == "-" {
			a.pos = append(a.pos, s)
			continue
		}
		name := strings.TrimLeft(s, "-")
		val, hasVal := "", false
		if j := strings.IndexByte(name, '='); j >= 0 {
			name, val, hasVal = name[:j], name[j+1:], true
		}
		if name == "h" {
			name = "help"
		}
		spec, ok := specs[name]
		if !ok {
			return nil, fmt.Errorf("%s: unknown flag %s%s", a.name(), s, flagHint(name, specs))
		}
		switch spec.kind {
		case kindBool:
			if hasVal {
				if _, err := strconv.ParseBool(val); err != nil {
					return nil, fmt.Errorf("%s: --%s takes no value (got %q)", a.name(), name, val)
				}
			} else {
				val = "true"
			}
		case kindOptional:
			if !hasVal {
				val = ""
				if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
					a.next[name] = len(a.pos)
				}
			}
		case kindValue, kindMulti:
			if !hasVal {
				if i+1 >= len(argv) {
					return nil, fmt.Errorf("%s: --%s needs a value (%s)", a.name(), name, spec.Arg)
				}
				i++
				val = argv[i]
			}
		}
		if spec.kind != kindMulti && len(a.set[name]) > 0 && spec.kind != kindBool {
			return nil, fmt.Errorf("%s: --%s given twice", a.name(), name)
		}
		a.set[name] = append(a.set[name], val)
	}
	return a, nil
}

// name is the command as messages and the usage name it: "vxd serve".
func (a *Args) name() string { return a.prog + " " + a.verb }

func flagHint(name string, specs map[string]spec) string {
	var names []string
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasPrefix(n, name) || strings.HasPrefix(name, n) {
			return fmt.Sprintf(" (did you mean --%s?)", n)
		}
	}
	return fmt.Sprintf(" (flags: --%s)", strings.Join(names, ", --"))
}

// has reports whether the flag was given.
func (a *Args) has(name string) bool { return len(a.set[name]) > 0 }

// kindBool is a boolean flag's value.
func (a *Args) boolean(name string) bool {
	v := a.set[name]
	if len(v) == 0 {
		return false
	}
	b, _ := strconv.ParseBool(v[len(v)-1])
	return b
}

// str is the flag's last value ("" when not given).
func (a *Args) str(name string) string {
	v := a.set[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// list is every value of a repeatable flag.
func (a *Args) list(name string) []string { return a.set[name] }

// integer is the flag's value as a whole number, def when not given.
func (a *Args) integer(name string, def int) (int, error) {
	if !a.has(name) {
		return def, nil
	}
	n, err := strconv.Atoi(a.str(name))
	if err != nil {
		return 0, fmt.Errorf("%s: --%s %q is not a whole number", a.name(), name, a.str(name))
	}
	return n, nil
}

// Format reads --format: "text" (default) or "json".
func (a *Args) Format() (string, error) {
	f := a.str("format")
	switch f {
	case "", "text", "human":
		return "text", nil
	case "json":
		return "json", nil
	}
	return "", fmt.Errorf("%s: --format %q is not a format (use text or json)", a.name(), f)
}

// Pos are the positional arguments.
func (a *Args) Pos() []string { return a.pos }

// Usage is the verb's usage text with every flag.
func (a *Args) Usage(synopsis string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s %s\n\nflags:\n", a.prog, synopsis)
	var names []string
	for n := range a.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := a.specs[n]
		left := "--" + n
		switch s.kind {
		case kindValue, kindMulti:
			left += " " + s.Arg
		case kindOptional:
			left += "[=" + s.Arg + "]"
		}
		fmt.Fprintf(&b, "  %-26s %s\n", left, s.Help)
	}
	return b.String()
}

// TakeRef lets an optional-value flag take the argument after it as its
// value (`--affected main`) when accept says that argument is one (a git
// ref that is not a task name); it is then no longer a positional.
func (a *Args) TakeRef(name string, accept func(string) bool) {
	i, ok := a.next[name]
	if !ok || a.str(name) != "" || i >= len(a.pos) || !accept(a.pos[i]) {
		return
	}
	a.set[name][len(a.set[name])-1] = a.pos[i]
	a.pos = append(a.pos[:i:i], a.pos[i+1:]...)
}

// Verb declares one verb's command line for Command.
type Verb struct {
	Prog     string // the program: "vx" (the default) or "vxd"
	Name     string // the verb as messages name it: "last", "cache prune"
	Synopsis string // the usage line after the program's name
	About    string // what --help prints after the flags
	// Help, when set, is all --help prints, in place of the usage.
	Help string
	// Bind declares the verb's flags (Bind's struct tags).
	Bind *Binding
	// Answers says the verb answers a question: it takes
	// --format text|json, which Command reads.
	Answers bool
	// NoArgs refuses positional arguments, the refusal followed by
	// NoArgsHint.
	NoArgs     bool
	NoArgsHint string
	// Check, when set, refuses what the flags cannot say (e.g. how many
	// arguments), after the flags parsed and before anything loads.
	Check func(*Args) error
}

// Command is every verb's preamble, so that usage and refusals read the
// same everywhere: it parses argv against the verb's flags (a refusal is
// a UsageError), answers --help (printing the usage; help is true), reads
// --format for a verb that answers, refuses arguments for one that takes
// none, and runs the verb's Check.
func Command(s *IO, v Verb, argv []string) (a *Args, format string, help bool, err error) {
	flags := v.Bind.specs()
	if v.Answers {
		flags["format"] = spec{kind: kindValue, Arg: "text|json", Help: "output format"}
	}
	prog := v.Prog
	if prog == "" {
		prog = "vx"
	}
	a, err = parse(prog, v.Name, argv, flags)
	if err != nil {
		return nil, "", false, UsageError(err.Error())
	}
	if a.boolean("help") {
		if v.Help != "" {
			fmt.Fprint(s.Out, v.Help)
		} else {
			fmt.Fprint(s.Out, a.Usage(v.Synopsis)+v.About)
		}
		return a, "", true, nil
	}
	if v.Answers {
		if format, err = a.Format(); err != nil {
			return nil, "", false, UsageError(err.Error())
		}
	}
	if v.NoArgs && len(a.pos) > 0 {
		return nil, "", false, UsageError(fmt.Sprintf("%s %s takes no arguments (got %q)%s", prog, v.Name, a.pos[0], v.NoArgsHint))
	}
	if v.Check != nil {
		if err := v.Check(a); err != nil {
			return nil, "", false, err
		}
	}
	return a, format, false, nil
}
