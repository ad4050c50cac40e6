package cmdline

import (
	"context"
	"fmt"
	"slices"

	"github.com/vzn/vx/protocol/version"
)

// Subcommand is one verb of a program: vx run, vxd status.
type Subcommand struct {
	Name    string
	Summary string // its line in the program's help
	Run     func(ctx context.Context, s *IO, argv []string) error
}

// Program is a command line made of verbs; both vx and vxd are one.
type Program struct {
	Name     string       // "vx" or "vxd"
	About    string       // what the help says the program is, after its version
	Footer   string       // what the help prints after the verbs
	Commands []Subcommand // a "version" verb is added after them
	// Hint, when set, follows the refusal of an unknown verb (e.g. the
	// closest name).
	Hint func(name string, names []string) string
	// More, when set, answers verbs found at run time (vx's plugin
	// commands) and the heading the help lists them under. They never
	// replace a built-in verb.
	More func(s *IO) (heading string, cmds []Subcommand)
}

// Run runs the verb argv names and returns the process exit code: with no
// verb or help it prints the help, --version is the version verb, and an
// unknown verb is refused (exit 2).
func (p Program) Run(ctx context.Context, argv []string, s *IO) int {
	cmds := append(p.Commands, Subcommand{"version", "print the version", func(ctx context.Context, s *IO, argv []string) error {
		fmt.Fprintln(s.Out, version.Line(p.Name))
		return nil
	}})
	if len(argv) == 0 || argv[0] == "help" || argv[0] == "--help" || argv[0] == "-h" {
		p.help(s, cmds)
		return 0
	}
	verb := argv[0]
	if verb == "--version" {
		verb = "version"
	}
	names := make([]string, 0, len(cmds))
	for _, c := range cmds {
		if c.Name == verb {
			return Exit(s, p.Name, c.Run(ctx, s, argv[1:]))
		}
		names = append(names, c.Name)
	}
	if p.More != nil {
		_, more := p.More(s)
		for _, c := range more {
			if c.Name == verb {
				return Exit(s, p.Name, c.Run(ctx, s, argv[1:]))
			}
			names = append(names, c.Name)
		}
	}
	hint := ""
	if p.Hint != nil {
		hint = p.Hint(argv[0], names)
	}
	fmt.Fprintf(s.Err, "%s: unknown command %q%s; run `%s help`\n", p.Name, argv[0], hint, p.Name)
	return 2
}

// help prints the program's help: its verbs, then the verbs found at run
// time under their heading, every summary in one column after the
// longest name of either list.
func (p Program) help(s *IO, cmds []Subcommand) {
	var heading string
	var more []Subcommand
	if p.More != nil {
		heading, more = p.More(s)
	}
	width := 0
	for _, c := range append(slices.Clip(cmds), more...) {
		width = max(width, len(c.Name))
	}
	list := func(cs []Subcommand) {
		for _, c := range cs {
			fmt.Fprintf(s.Out, "  %-*s  %s\n", width, c.Name, c.Summary)
		}
	}
	fmt.Fprintf(s.Out, "%s %s: %s\n\nusage: %s <command> [flags]\n\ncommands:\n", p.Name, version.Version, p.About, p.Name)
	list(cmds)
	if len(more) > 0 {
		fmt.Fprintf(s.Out, "\n%s:\n", heading)
		list(more)
	}
	fmt.Fprint(s.Out, p.Footer)
}
