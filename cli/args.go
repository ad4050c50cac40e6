package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// flagKind says how a flag takes its value.
type flagKind int

const (
	boolFlag     flagKind = iota // --x
	valueFlag                    // --x V or --x=V
	optionalFlag                 // --x or --x=V (never the next argument)
	multiFlag                    // --x V, repeatable
)

type flagSpec struct {
	kind flagKind
	help string
	arg  string
}

// args is a verb's parsed command line.
type args struct {
	verb  string
	specs map[string]flagSpec
	set   map[string][]string
	pos   []string
	// next maps an optional-value flag given without "=" to the index in
	// pos of the argument that followed it, if any (see takeRef).
	next map[string]int
}

// parseArgs parses flags anywhere among positionals; "--" ends flags.
// Unknown flags and missing values are errors naming the flag.
func parseArgs(verb string, argv []string, specs map[string]flagSpec) (*args, error) {
	specs["help"] = flagSpec{kind: boolFlag, help: "print this help"}
	a := &args{verb: verb, specs: specs, set: map[string][]string{}, next: map[string]int{}}
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
		switch spec.kind {
		case boolFlag:
			if hasVal {
				if _, err := strconv.ParseBool(val); err != nil {
					return nil, fmt.Errorf("vx %s: --%s takes no value (got %q)", verb, name, val)
				}
			} else {
				val = "true"
			}
		case optionalFlag:
			if !hasVal {
				val = ""
				if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
					a.next[name] = len(a.pos)
				}
			}
		case valueFlag, multiFlag:
			if !hasVal {
				if i+1 >= len(argv) {
					return nil, fmt.Errorf("vx %s: --%s needs a value (%s)", verb, name, spec.arg)
				}
				i++
				val = argv[i]
			}
		}
		if spec.kind != multiFlag && len(a.set[name]) > 0 && spec.kind != boolFlag {
			return nil, fmt.Errorf("vx %s: --%s given twice", verb, name)
		}
		a.set[name] = append(a.set[name], val)
	}
	return a, nil
}

func flagHint(name string, specs map[string]flagSpec) string {
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

func (a *args) has(name string) bool { return len(a.set[name]) > 0 }

func (a *args) bool(name string) bool {
	v := a.set[name]
	if len(v) == 0 {
		return false
	}
	b, _ := strconv.ParseBool(v[len(v)-1])
	return b
}

func (a *args) str(name string) string {
	v := a.set[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

func (a *args) list(name string) []string { return a.set[name] }

func (a *args) int(name string, def int) (int, error) {
	if !a.has(name) {
		return def, nil
	}
	n, err := strconv.Atoi(a.str(name))
	if err != nil {
		return 0, fmt.Errorf("vx %s: --%s %q is not a whole number", a.verb, name, a.str(name))
	}
	return n, nil
}

// format reads --format: "text" (default) or "json".
func (a *args) format() (string, error) {
	f := a.str("format")
	switch f {
	case "", "text", "human":
		return "text", nil
	case "json":
		return "json", nil
	}
	return "", fmt.Errorf("vx %s: --format %q is not a format (use text or json)", a.verb, f)
}

func (a *args) usage(synopsis string) string {
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
		switch s.kind {
		case valueFlag, multiFlag:
			left += " " + s.arg
		case optionalFlag:
			left += "[=" + s.arg + "]"
		}
		fmt.Fprintf(&b, "  %-26s %s\n", left, s.help)
	}
	return b.String()
}

// takeRef lets an optional-value flag take the argument after it as its
// value (`--affected main`) when accept says that argument is one (a git
// ref that is not a task name); it is then no longer a positional.
func (a *args) takeRef(name string, accept func(string) bool) {
	i, ok := a.next[name]
	if !ok || a.str(name) != "" || i >= len(a.pos) || !accept(a.pos[i]) {
		return
	}
	a.set[name][len(a.set[name])-1] = a.pos[i]
	a.pos = append(a.pos[:i:i], a.pos[i+1:]...)
}
