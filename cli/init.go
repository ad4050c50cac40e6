package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/vzn/vx/daemon/migrate"
	"github.com/vzn/vx/daemon/ops"
)

func initVerb(ctx context.Context, s *IO, argv []string) error {
	a, err := parseArgs("init", argv, map[string]flagSpec{
		"dry":    {kind: boolFlag, help: "print the plan, write nothing"},
		"force":  {kind: boolFlag, help: "replace an existing vx.workspace.json"},
		"format": {kind: valueFlag, arg: "text|json", help: "output format"},
	})
	if err != nil {
		return usageError{err.Error()}
	}
	if a.bool("help") {
		fmt.Fprint(s.Out, a.usage("init [--dry] [--force] [flags]")+"\nDetects turbo.json, nx.json/project.json or package.json workspaces and proposes vx.workspace.json (and vx.project.json files).\n")
		return nil
	}
	format, err := a.format()
	if err != nil {
		return usageError{err.Error()}
	}
	if len(a.pos) > 0 {
		return usageError{fmt.Sprintf("vx init takes no arguments (got %q)", a.pos[0])}
	}
	in := ops.InitInput{Dir: s.dir(), Environ: s.environ()}
	if a.bool("force") {
		in.Mode = ops.InitForce
	}
	var plan *migrate.Plan
	var written []string
	if a.bool("dry") {
		plan, err = ops.PlanInit(ctx, in)
	} else {
		var out *ops.InitOutput
		if out, err = ops.Init(ctx, in); out != nil {
			plan, written = out.Plan, out.Written
		}
	}
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(s.Out, plan)
	}
	renderInitPlan(s.Out, plan, a.bool("dry"), written)
	return nil
}

func renderInitPlan(w io.Writer, p *migrate.Plan, dry bool, written []string) {
	fmt.Fprintf(w, "vx init in %s (from %s, package manager %s)\n\n", p.Root, p.Source, p.PackageManager)
	for _, f := range p.Files {
		fmt.Fprintf(w, "── %s (%s)\n%s\n", f.Path, f.Action, f.Text)
	}
	if len(p.Todos) > 0 {
		fmt.Fprintln(w, "todo:")
		for _, t := range p.Todos {
			loc := t.File
			if t.Line > 0 {
				loc = fmt.Sprintf("%s:%d:%d", t.File, t.Line, t.Col)
			}
			item := ""
			if t.Item != "" {
				item = " " + t.Item + ":"
			}
			fmt.Fprintf(w, "  - %s%s %s\n", loc, item, t.Reason)
		}
	}
	if len(p.Notes) > 0 {
		fmt.Fprintln(w, "notes:")
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	if dry {
		fmt.Fprintln(w, "\n(dry run: nothing written)")
	} else {
		fmt.Fprintf(w, "\nwrote: %v\n", written)
	}
	if len(p.Next) > 0 {
		fmt.Fprintln(w, "next:")
		for _, n := range p.Next {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}
