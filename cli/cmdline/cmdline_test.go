package cmdline

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/version"
)

func specs() map[string]spec {
	return map[string]spec{
		"force":  {kind: kindBool, Help: "ignore the cache"},
		"run":    {kind: kindValue, Arg: "ID", Help: "a run id"},
		"filter": {kind: kindMulti, Arg: "SEL", Help: "a selection"},
		"dry":    {kind: kindOptional, Arg: "json", Help: "plan only"},
	}
}

// TestParse: flags anywhere among the arguments, "--" ends them, and each
// refusal names the flag.
func TestParse(t *testing.T) {
	a, err := parse("vx", "run", []string{"build", "--filter", "a", "--run=r1", "--filter=b", "--force", "--", "--not-a-flag"}, specs())
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Pos(); len(got) != 2 || got[0] != "build" || got[1] != "--not-a-flag" {
		t.Errorf("Pos() = %q; want build and --not-a-flag (after --)", got)
	}
	if !a.boolean("force") || a.str("run") != "r1" || strings.Join(a.list("filter"), ",") != "a,b" || a.has("dry") {
		t.Errorf("force %v run %q filter %q dry %v", a.boolean("force"), a.str("run"), a.list("filter"), a.has("dry"))
	}
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"--forc"}, "unknown flag --forc (did you mean --force?)"},
		{[]string{"--zzz"}, "unknown flag --zzz (flags: --dry, --filter, --force, --help, --run)"},
		{[]string{"--run"}, "--run needs a value (ID)"},
		{[]string{"--run=a", "--run=b"}, "--run given twice"},
		{[]string{"--force=maybe"}, `--force takes no value (got "maybe")`},
	} {
		_, err := parse("vx", "run", tc.argv, specs())
		if err == nil || err.Error() != "vx run: "+tc.want {
			t.Errorf("%q: %v; want %q", tc.argv, err, "vx run: "+tc.want)
		}
	}
}

// TestCommand: the one preamble prints the usage on --help, reads
// --format for a verb that answers, refuses stray arguments and runs the
// verb's own check, each refusal a usage error (exit 2).
func TestCommand(t *testing.T) {
	var out bytes.Buffer
	s := &IO{Out: &out, Err: &out}
	v := Verb{Prog: "vxd", Name: "status", Synopsis: "status [flags]", About: "\nmore words\n", Answers: true, NoArgs: true, NoArgsHint: "; try --run"}
	if _, _, help, err := Command(s, v, []string{"-h"}); !help || err != nil {
		t.Fatalf("-h: help %v, err %v", help, err)
	}
	if u := out.String(); !strings.HasPrefix(u, "usage: vxd status [flags]\n") || !strings.Contains(u, "--format text|json") || !strings.HasSuffix(u, "\nmore words\n") {
		t.Errorf("usage:\n%s", u)
	}
	if _, format, help, err := Command(s, v, []string{"--format", "json"}); err != nil || help || format != "json" {
		t.Errorf("--format json: %q %v %v", format, help, err)
	}
	if _, format, _, err := Command(s, v, nil); err != nil || format != "text" {
		t.Errorf("no --format: %q %v; want text", format, err)
	}
	refusals := map[string][]string{
		`vxd status: --format "xml" is not a format (use text or json)`: {"--format=xml"},
		`vxd status takes no arguments (got "x"); try --run`:            {"x"},
		`vxd status: unknown flag --bogus (flags: --format, --help)`:    {"--bogus"},
	}
	for want, argv := range refusals {
		_, _, _, err := Command(s, v, argv)
		if err == nil || err.Error() != want || Exit(&IO{Err: &bytes.Buffer{}}, "vxd", err) != 2 {
			t.Errorf("%q: %v; want the usage error %q", argv, err, want)
		}
	}
	v.Check = func(a *Args) error { return UsageError("checked") }
	if _, _, _, err := Command(s, v, nil); err == nil || err.Error() != "checked" {
		t.Errorf("Check: %v; want its refusal", err)
	}
}

// TestProgram: the help lists every verb and the version verb, --version
// is the version, an unknown verb is refused with the hint, and a verb's
// error is its exit code.
func TestProgram(t *testing.T) {
	p := Program{Name: "vx", About: "a runner", Footer: "footer\n",
		Hint: func(name string, names []string) string { return " (did you mean " + names[0] + "?)" },
		Commands: []Subcommand{
			{Name: "ok", Summary: "succeeds", Run: func(ctx context.Context, s *IO, argv []string) error { return nil }},
			{Name: "usage", Summary: "refuses", Run: func(ctx context.Context, s *IO, argv []string) error { return UsageError("bad words") }},
			{Name: "three", Summary: "exits 3", Run: func(ctx context.Context, s *IO, argv []string) error { return ExitCode(3) }},
			{Name: "fail", Summary: "fails", Run: func(ctx context.Context, s *IO, argv []string) error { return errors.New("broke") }},
		}}
	run := func(argv ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := p.Run(context.Background(), argv, &IO{Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	code, out, _ := run()
	if code != 0 || !strings.HasPrefix(out, "vx "+version.Version+": a runner\n") || !strings.Contains(out, "  fail     fails\n") ||
		!strings.Contains(out, "  version  print the version\n") || !strings.HasSuffix(out, "footer\n") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
	if code, out, _ := run("--version"); code != 0 || out != version.Line("vx")+"\n" {
		t.Errorf("--version: exit %d %q", code, out)
	}
	if code, _, errs := run("nope"); code != 2 || errs != "vx: unknown command \"nope\" (did you mean ok?); run `vx help`\n" {
		t.Errorf("unknown verb: exit %d %q", code, errs)
	}
	for verb, want := range map[string]struct {
		code int
		err  string
	}{"ok": {0, ""}, "usage": {2, "vx: bad words\n"}, "three": {3, ""}, "fail": {1, "vx: broke\n"}} {
		if code, _, errs := run(verb); code != want.code || errs != want.err {
			t.Errorf("%s: exit %d %q; want %d %q", verb, code, errs, want.code, want.err)
		}
	}
}

// TestHelpColumns: vx help puts every summary in one column, built-in
// verbs and the verbs found at run time alike, however long a name is
// (a plugin's "tsconfigs" has 9 letters, one more than the old column).
func TestHelpColumns(t *testing.T) {
	noop := func(context.Context, *IO, []string) error { return nil }
	for _, more := range [][]string{{"tsconfigs"}, {"x", "a-very-long-plugin-verb"}, {"ab"}, nil} {
		p := Program{Name: "vx", About: "a runner", Commands: []Subcommand{
			{Name: "ok", Summary: "SUMMARY", Run: noop},
			{Name: "lengthiest", Summary: "SUMMARY", Run: noop},
		}}
		if more != nil {
			p.More = func(*IO) (string, []Subcommand) {
				var cmds []Subcommand
				for _, n := range more {
					cmds = append(cmds, Subcommand{Name: n, Summary: "SUMMARY", Run: noop})
				}
				return "Plugin commands", cmds
			}
		}
		var out bytes.Buffer
		p.Run(context.Background(), []string{"help"}, &IO{Out: &out, Err: io.Discard})
		col := -1
		for _, line := range strings.Split(out.String(), "\n") {
			if !strings.HasPrefix(line, "  ") {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
			if name == "version" {
				line = strings.Replace(line, "print the version", "SUMMARY", 1)
			}
			i := strings.Index(line, "SUMMARY")
			if i < 0 || i < len(name)+3 {
				t.Errorf("verbs %v: %q has no summary of its own", more, line)
				continue
			}
			if col < 0 {
				col = i
			}
			if i != col {
				t.Errorf("verbs %v: summaries start at columns %d and %d:\n%s", more, col, i, out.String())
				break
			}
		}
	}
}
