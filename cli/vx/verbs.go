package vx

import (
	"context"
	"errors"
	"fmt"
	"github.com/vzn/vx/opkit"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/taskkey"
	"github.com/vzn/vx/daemon/workspace"
)

// answer renders an operation's output: --format json prints exactly the
// structured answer its MCP tool gives, text is for people. A refusal of
// an argument names it as b binds it (b nil: as the operation names it).
func answer[T any](s *cmdline.IO, b *cmdline.Binding, format string, out T, err error, human func(io.Writer, T)) error {
	if err != nil {
		return refusal(b, err)
	}
	if format == "json" {
		return cmdline.WriteJSON(s.Out, out)
	}
	human(s.Out, out)
	return nil
}

// refusal renders an operation's refusal of an argument as a usage error
// naming it as b binds it (as the operation names it when b does not).
func refusal(b *cmdline.Binding, err error) error {
	var ae *opkit.Refusal
	if !errors.As(err, &ae) {
		return err
	}
	name, ok := b.ArgName(ae.Arg)
	if !ok {
		// An element of a repeated flag (filter[1]) is its flag.
		base, _, _ := strings.Cut(ae.Arg, "[")
		if name, ok = b.ArgName(base); !ok {
			name = ae.Arg
		}
	}
	return cmdline.UsageError(ae.Named(name))
}

// fill sets in, an operation's input, from the command line and checks it
// as the operation does for an agent (opkit.Check: its schema, then its
// Validate), so that a verb refuses what the tool refuses, in its words.
func fill(b *cmdline.Binding, a *cmdline.Args, in any) error {
	if err := b.Fill(a, in); err != nil {
		return err
	}
	if err := opkit.Check(in); err != nil {
		return refusal(b, err)
	}
	return nil
}

// opEnv loads the workspace for a question verb.
func opEnv(s *cmdline.IO) (*ops.Env, error) {
	m, err := loadModel(s)
	if err != nil {
		return nil, err
	}
	// A plugin that failed is said here: its tasks are missing from the
	// answer (vx run says so among its warnings).
	for _, w := range m.PluginWarnings() {
		fmt.Fprintf(s.Err, "vx: warning: %s\n", w)
	}
	return ops.NewEnv(m.Root, m, nil, s.Environment()), nil
}

// question is the preamble of a verb that asks an operation about the
// workspace: cmdline.Command, then the Env load makes. e is nil when the
// verb is done: --help answered (err nil), or a refusal.
func question(s *cmdline.IO, v cmdline.Verb, argv []string, load func(*cmdline.IO) (*ops.Env, error)) (a *cmdline.Args, format string, e *ops.Env, err error) {
	a, format, help, err := cmdline.Command(s, v, argv)
	if help || err != nil {
		return nil, "", nil, err
	}
	if e, err = load(s); err != nil {
		return nil, "", nil, err
	}
	return a, format, e, nil
}

// anyEnv is opEnv for the verbs that answer about a configuration that
// does not load (doctor, info): only a workspace that cannot be found is
// an error; the load error is the Env's.
func anyEnv(s *cmdline.IO) (*ops.Env, error) {
	root, err := workspace.FindRoot(s.WorkingDir())
	if err != nil {
		return nil, err
	}
	m, loadErr := workspace.Load(root)
	return ops.NewEnv(root, m, loadErr, s.Environment()), nil
}

var showBinding = cmdline.Bind(reflect.TypeFor[ops.ShowInput]())

func showVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	b := showBinding
	a, format, e, err := question(s, cmdline.Verb{Name: "show", Synopsis: "show [PROJECT | PROJECT#TASK | TASK] [flags]", Answers: true,
		Bind: b}, argv, opEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	if m, err := e.CurrentModel(); err == nil {
		a.TakeRef("affected", refNotTask(m))
	}
	if len(a.Pos()) > 1 {
		return cmdline.UsageError(fmt.Sprintf("vx show takes one target, got %d: %s", len(a.Pos()), strings.Join(a.Pos(), " ")))
	}
	var in ops.ShowInput
	if err := fill(b, a, &in); err != nil {
		return err
	}
	out, err := ops.Show(ctx, e, in)
	if in.Overlaps {
		return answer(s, b, format, out, err, renderOverlapsOnly)
	}
	return answer(s, b, format, out, err, renderShow)
}

// renderOverlapsOnly is vx show --overlaps: each pair, its outputs, what
// vx does about it and what would end it.
func renderOverlapsOnly(w io.Writer, o *ops.ShowOutput) {
	if len(o.OutputOverlaps) == 0 {
		fmt.Fprintln(w, "no two tasks shown here may write the same files")
		return
	}
	for _, ov := range o.OutputOverlaps {
		fmt.Fprintf(w, "%s and %s may write the same files:\n  %s declares output %s\n  %s declares output %s\n", ov.Tasks[0], ov.Tasks[1], ov.Tasks[0], ov.Outputs[0], ov.Tasks[1], ov.Outputs[1])
	}
	fmt.Fprintln(w, "\nNeither task of a pair depends on the other, so they could run at once; vx never runs both at the same time")
	fmt.Fprintln(w, "(across runs too), and the one that finishes last leaves its version of the files.")
	fmt.Fprintln(w, "Give each task its own outputs, or add a dependsOn between them, and the warning goes.")
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
		if o := t.InferredFrom; o != nil {
			row("inferred from", "plugin "+o.Plugin+", "+o.File)
		}
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
		if o := t.InferredFrom; o != nil {
			cmd += "  (plugin " + o.Plugin + ")"
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

var whyBinding = cmdline.Bind(reflect.TypeFor[ops.WhyInput]())

func whyVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	b := whyBinding
	a, format, e, err := question(s, cmdline.Verb{Name: "why", Synopsis: "why PROJECT#TASK [--run ID] [flags]", Answers: true,
		Bind: b,
		Check: func(a *cmdline.Args) error {
			if len(a.Pos()) != 1 {
				return cmdline.UsageError("vx why takes one task id, e.g. `vx why web#build`")
			}
			return nil
		}}, argv, opEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	var in ops.WhyInput
	if err := fill(b, a, &in); err != nil {
		return err
	}
	out, err := ops.Why(ctx, e, in)
	return answer(s, b, format, out, err, renderWhy)
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
