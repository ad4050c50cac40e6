package vx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/taskkey"
	"github.com/vzn/vx/daemon/workspace"
)

// answer runs an operation and renders its output as JSON or for people.
func answer[T any](s *cmdline.IO, format string, out T, err error, human func(io.Writer, T)) error {
	if err != nil {
		var ae *ops.ArgError
		if errors.As(err, &ae) {
			// Name the flag or argument as the command line spells it.
			name := map[string]string{"runId": "--run", "taskId": "task", "olderThan": "--older-than", "maxSize": "--max-size", "target": "target", "query": "query"}[ae.Arg]
			if name == "" {
				name = ae.Arg
			}
			return cmdline.UsageError(name + ": " + ae.Msg)
		}
		return err
	}
	if format == "json" {
		return cmdline.WriteJSON(s.Out, out)
	}
	human(s.Out, out)
	return nil
}

// opEnv loads the workspace for a question verb.
func opEnv(s *cmdline.IO) (*ops.Env, error) {
	m, err := loadModel(s)
	if err != nil {
		return nil, err
	}
	return ops.NewEnv(m.Root, m, nil, s.Environment()), nil
}

func showVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, err := cmdline.Parse("show", argv, map[string]cmdline.Spec{
		"filter":   {Kind: cmdline.Multi, Arg: "SEL", Help: "only projects matching SEL (as vx run --filter)"},
		"affected": {Kind: cmdline.Optional, Arg: "REF", Help: "only affected projects (as vx run --affected)"},
		"format":   {Kind: cmdline.Value, Arg: "text|json", Help: "output format"},
	})
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	if a.Bool("help") {
		fmt.Fprint(s.Out, a.Usage("show [PROJECT | PROJECT#TASK | TASK] [flags]"))
		return nil
	}
	format, err := a.Format()
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	e, err := opEnv(s)
	if err != nil {
		return err
	}
	defer e.Close()
	a.TakeRef("affected", refNotTask(e.Model))
	if len(a.Pos()) > 1 {
		return cmdline.UsageError(fmt.Sprintf("vx show takes one target, got %d: %s", len(a.Pos()), strings.Join(a.Pos(), " ")))
	}
	in := ops.ShowInput{Filters: a.List("filter"), Affected: a.Has("affected"), AffectedRef: a.Str("affected")}
	if len(a.Pos()) == 1 {
		in.Target = a.Pos()[0]
	}
	out, err := ops.Show(ctx, e, in)
	return answer(s, format, out, err, renderShow)
}

func renderShow(w io.Writer, o *ops.ShowOutput) {
	if o.Kind == "task" {
		var t ops.TaskInfo
		if len(o.Projects) > 0 {
			t = o.Projects[0].Tasks[0]
		} else {
			t = o.RootTasks[0]
		}
		tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
		row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
		list := func(s []string) string {
			if len(s) == 0 {
				return "-"
			}
			return strings.Join(s, ", ")
		}
		row("task", t.TaskID)
		cmd := t.Command
		if t.NoOp {
			cmd = "(none: a no-op that only orders its dependencies)"
		}
		row("command", cmd+"  ["+t.CommandSource+"]")
		row("dependsOn", list(t.DependsOn))
		inputs := list(t.Inputs)
		if len(t.Inputs) == 0 {
			inputs = "every file of the project git does not ignore"
		}
		row("inputs", inputs)
		row("outputs", list(t.Outputs))
		row("cache", fmt.Sprint(t.Cache))
		row("env", list(t.Env))
		row("passEnv", list(t.PassEnv))
		for name, v := range t.ExecEnv {
			row("exec.env."+name, v)
		}
		if t.Timeout != "" {
			row("timeout", t.Timeout)
		}
		if sb := t.Sandbox; sb != nil {
			row("sandbox", sandboxText(sb))
		}
		tw.Flush()
		renderOverlaps(w, o.OutputOverlaps)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tCOMMAND\tDEPENDS ON\tCACHE")
	print := func(t ops.TaskInfo) {
		cmd := t.Command
		if t.NoOp {
			cmd = "(no-op)"
		}
		if len(cmd) > 60 {
			cmd = cmd[:57] + "..."
		}
		deps := strings.Join(t.DependsOn, ",")
		if deps == "" {
			deps = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\n", t.TaskID, cmd, deps, t.Cache)
	}
	for _, p := range o.Projects {
		for _, t := range p.Tasks {
			print(t)
		}
	}
	for _, t := range o.RootTasks {
		print(t)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d projects in %s\n", len(o.Projects), o.Root)
	renderOverlaps(w, o.OutputOverlaps)
}

// renderOverlaps names tasks that may write the same files.
func renderOverlaps(w io.Writer, overlaps []workspace.OutputOverlap) {
	for _, ov := range overlaps {
		fmt.Fprintf(w, "outputs overlap: %s\n", ops.OverlapText(ov))
	}
}

func whyVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, err := cmdline.Parse("why", argv, map[string]cmdline.Spec{
		"run":    {Kind: cmdline.Value, Arg: "ID", Help: "the run to explain (whole id or unique prefix; default: the task's latest)"},
		"format": {Kind: cmdline.Value, Arg: "text|json", Help: "output format"},
	})
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	if a.Bool("help") {
		fmt.Fprint(s.Out, a.Usage("why PROJECT#TASK [--run ID] [flags]"))
		return nil
	}
	format, err := a.Format()
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	if len(a.Pos()) != 1 {
		return cmdline.UsageError("vx why takes one task id, e.g. `vx why web#build`")
	}
	e, err := opEnv(s)
	if err != nil {
		return err
	}
	defer e.Close()
	out, err := ops.Why(ctx, e, ops.WhyInput{TaskID: a.Pos()[0], RunID: a.Str("run"), RunSet: a.Has("run")})
	return answer(s, format, out, err, renderWhy)
}

func renderWhy(w io.Writer, o *ops.WhyOutput) {
	fmt.Fprintf(w, "%s in run %s (%s, cache %s)\n", o.TaskID, o.RunID, o.Status, o.Cache)
	fmt.Fprintf(w, "  key       %s\n", o.Key)
	if o.PreviousKey != "" {
		fmt.Fprintf(w, "  previous  %s (run %s)\n", o.PreviousKey, o.PreviousRunID)
	}
	fmt.Fprintf(w, "%s\n", o.Summary)
	if o.Diff != nil {
		renderDiff(w, "  ", o.Diff)
	}
	for _, r := range o.Roots {
		fmt.Fprintf(w, "upstream root %s:\n", r.TaskID)
		if r.Diff != nil {
			renderDiff(w, "  ", r.Diff)
		}
	}
}

func renderDiff(w io.Writer, indent string, d *taskkey.Diff) {
	if d.Runner != nil {
		fmt.Fprintf(w, "%svx version: %s → %s\n", indent, d.Runner.Before, d.Runner.After)
	}
	set := func(what string, sd taskkey.SetDiff) {
		for _, f := range sd.Changed {
			fmt.Fprintf(w, "%s~ %s %s\n", indent, what, f)
		}
		for _, f := range sd.Added {
			fmt.Fprintf(w, "%s+ %s %s\n", indent, what, f)
		}
		for _, f := range sd.Removed {
			fmt.Fprintf(w, "%s- %s %s\n", indent, what, f)
		}
	}
	set("file", d.Files)
	set("global input", d.Global)
	set("env", d.Env)
	for _, c := range d.Definition {
		fmt.Fprintf(w, "%s~ definition %s: %q → %q\n", indent, c.Name, c.Before, c.After)
	}
	set("upstream", d.Upstream)
}
