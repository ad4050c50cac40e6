package cmdline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Kind says how a flag takes its value.
type Kind int

const (
	Bool     Kind = iota // --x
	Value                // --x V or --x=V
	Optional             // --x or --x=V (never the next argument)
	Multi                // --x V, repeatable
)

// Spec declares one flag: how it takes its value, its help text, and
// (for a flag with a value) the name of the value in the usage text.
type Spec struct {
	Kind Kind
	Help string
	Arg  string
}

// Args is a verb's parsed command line.
type Args struct {
	verb  string
	specs map[string]Spec
	set   map[string][]string
	pos   []string
	// next maps an optional-value flag given without "=" to the index in
	// pos of the argument that followed it, if any (see TakeRef).
	next map[string]int
}

// Parse parses flags anywhere among positionals; "--" ends flags.
// Unknown flags and missing values are errors naming the flag.
func Parse(verb string, argv []string, specs map[string]Spec) (*Args, error) {
	specs["help"] = Spec{Kind: Bool, Help: "print this help"}
	a := &Args{verb: verb, specs: specs, set: map[string][]string{}, next: map[string]int{}}
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
			return nil, fmt.Errorf("vx %s: unknown flag %s%s", verb, s, flagHint(name, specs))
		}
		switch spec.Kind {
		case Bool:
			if hasVal {
				if _, err := strconv.ParseBool(val); err != nil {
					return nil, fmt.Errorf("vx %s: --%s takes no value (got %q)", verb, name, val)
				}
			} else {
				val = "true"
			}
		case Optional:
			if !hasVal {
				val = ""
				if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
					a.next[name] = len(a.pos)
				}
			}
		case Value, Multi:
			if !hasVal {
				if i+1 >= len(argv) {
					return nil, fmt.Errorf("vx %s: --%s needs a value (%s)", verb, name, spec.Arg)
				}
				i++
				val = argv[i]
			}
		}
		if spec.Kind != Multi && len(a.set[name]) > 0 && spec.Kind != Bool {
			return nil, fmt.Errorf("vx %s: --%s given twice", verb, name)
		}
		a.set[name] = append(a.set[name], val)
	}
	return a, nil
}

func flagHint(name string, specs map[string]Spec) string {
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

// Has reports whether the flag was given.
func (a *Args) Has(name string) bool { return len(a.set[name]) > 0 }

// Bool is a boolean flag's value.
func (a *Args) Bool(name string) bool {
	v := a.set[name]
	if len(v) == 0 {
		return false
	}
	b, _ := strconv.ParseBool(v[len(v)-1])
	return b
}

// Str is the flag's last value ("" when not given).
func (a *Args) Str(name string) string {
	v := a.set[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// List is every value of a repeatable flag.
func (a *Args) List(name string) []string { return a.set[name] }

// Int is the flag's value as a whole number, def when not given.
func (a *Args) Int(name string, def int) (int, error) {
	if !a.Has(name) {
		return def, nil
	}
	n, err := strconv.Atoi(a.Str(name))
	if err != nil {
		return 0, fmt.Errorf("vx %s: --%s %q is not a whole number", a.verb, name, a.Str(name))
	}
	return n, nil
}

// Format reads --format: "text" (default) or "json".
func (a *Args) Format() (string, error) {
	f := a.Str("format")
	switch f {
	case "", "text", "human":
		return "text", nil
	case "json":
		return "json", nil
	}
	return "", fmt.Errorf("vx %s: --format %q is not a format (use text or json)", a.verb, f)
}

// Pos are the positional arguments.
func (a *Args) Pos() []string { return a.pos }

// Usage is the verb's usage text with every flag.
func (a *Args) Usage(synopsis string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: vx %s\n\nflags:\n", synopsis)
	var names []string
	for n := range a.specs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := a.specs[n]
		left := "--" + n
		switch s.Kind {
		case Value, Multi:
			left += " " + s.Arg
		case Optional:
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
	if !ok || a.Str(name) != "" || i >= len(a.pos) || !accept(a.pos[i]) {
		return
	}
	a.set[name][len(a.set[name])-1] = a.pos[i]
	a.pos = append(a.pos[:i:i], a.pos[i+1:]...)
}
