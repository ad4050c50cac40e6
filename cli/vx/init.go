package vx

import (
	"context"
	"fmt"
	"io"
	"reflect"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/migrate"
	"github.com/vzn/vx/daemon/ops"
)

var initBinding = cmdline.Bind(reflect.TypeFor[ops.InitInput](), reflect.TypeFor[initFlags]())

// initFlags are vx init's own flags.
type initFlags struct {
	Dry bool `flag:"dry" help:"print the plan, write nothing"`
}

func initVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	b := initBinding
	a, format, help, err := cmdline.Command(s, cmdline.Verb{Name: "init", Synopsis: "init [--dry] [--force] [--sandbox MODE] [flags]",
		About:   "\nDetects turbo.json, nx.json/project.json or package.json workspaces and proposes vx.workspace.json (and vx.project.json files).\n",
		Answers: true, NoArgs: true,
		Bind: b}, argv)
	if help || err != nil {
		return err
	}
	in := ops.InitInput{Dir: s.WorkingDir(), Environ: s.Environment(), RunNx: true}
	var f initFlags
	if err := fill(b, a, &in); err != nil {
		return err
	}
	if err := b.Fill(a, &f); err != nil {
		return err
	}
	var plan *migrate.Plan
	var written []string
	if f.Dry {
		plan, err = ops.PlanInit(ctx, in)
	} else {
		var out *ops.InitOutput
		if out, err = ops.Init(ctx, in); out != nil {
			plan, written = out.Plan, out.Written
		}
	}
	if err != nil {
		return refusal(b, err)
	}
	if format == "json" {
		return cmdline.WriteJSON(s.Out, plan)
	}
	renderInitPlan(s.Out, plan, f.Dry, written)
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
