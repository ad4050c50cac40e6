package vx

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"text/tabwriter"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/opkit"
)

// vx last answers three operations: getLastRun, getTaskLog (--log) and
// the run list (--list).
var lastBinding = cmdline.Bind(reflect.TypeFor[ops.RunInput](), reflect.TypeFor[ops.TaskLogInput](), reflect.TypeFor[ops.RunsInput](), reflect.TypeFor[lastFlags]())

// lastFlags are vx last's own flags.
type lastFlags struct {
	List bool `flag:"list" help:"list the latest runs"`
}

func lastVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	b := lastBinding
	a, format, e, err := question(s, cmdline.Verb{Name: "last", Synopsis: "last [--list] [--run ID] [--violations] [--log PROJECT#TASK] [flags]",
		Answers: true, NoArgs: true, NoArgsHint: "; use --run ID or --log PROJECT#TASK",
		Bind: b}, argv, opEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	var f lastFlags
	var run ops.RunInput
	var log ops.TaskLogInput
	for _, dst := range []any{&f, &run, &log} {
		if err := b.Fill(a, dst); err != nil {
			return err
		}
	}
	if run.Violations && (f.List || log.TaskID != "") {
		return cmdline.UsageError("vx last --violations answers about one run's tasks: use it without --list and --log")
	}
	switch {
	case f.List:
		var in ops.RunsInput
		if err := fill(b, a, &in); err != nil {
			return err
		}
		out, err := ops.Runs(ctx, e, in)
		return answer(s, b, format, out, err, renderRuns)
	case log.TaskID != "":
		if err := opkit.Check(&log); err != nil {
			return refusal(b, err)
		}
		out, err := ops.TaskLog(ctx, e, log)
		return answer(s, b, format, out, err, func(w io.Writer, o *ops.TaskLogOutput) {
			src := "none"
			if o.Source != nil {
				src = *o.Source
			}
			fmt.Fprintf(w, "%s in run %s: %s (cache %s), log from %s\n", o.TaskID, o.RunID, o.Status, o.Cache, src)
			if o.Note != "" {
				fmt.Fprintln(w, o.Note)
			}
			fmt.Fprint(w, o.Output)
		})
	default:
		if err := opkit.Check(&run); err != nil {
			return refusal(b, err)
		}
		out, err := ops.Run(ctx, e, run)
		return answer(s, b, format, out, err, renderRun)
	}
}

func renderRuns(w io.Writer, o *ops.RunsOutput) {
	if len(o.Runs) == 0 {
		fmt.Fprintln(w, "no run recorded in this workspace yet")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTARTED\tSTATUS\tTASKS\tCACHED\tFAILED\tTIME\tCOMMAND")
	for _, r := range o.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", r.ID, cmdline.Time(r.StartedAt), r.Status, r.Tasks, r.Cached, r.Failed, cmdline.Ms(r.DurationMs), r.Command)
	}
	tw.Flush()
}

func renderRun(w io.Writer, o *ops.RunOutput) {
	if !o.Found {
		fmt.Fprintln(w, o.Note)
		return
	}
	r := o.Run
	fmt.Fprintf(w, "run %s  %s  %s  %s\n  %s\n\n", r.ID, cmdline.Time(r.StartedAt), r.Status, cmdline.Ms(r.DurationMs), r.Command)
	if o.Note != "" {
		fmt.Fprintln(w, o.Note)
	}
	if len(o.Tasks) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATUS\tCACHE\tTIME\tEXIT\tREASON")
	for _, t := range o.Tasks {
		code := "-"
		if t.ExitCode != nil {
			code = fmt.Sprint(*t.ExitCode)
		}
		cacheCol := cacheText(t.Cache, t.CacheSource)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.TaskID, t.Status, cacheCol, cmdline.Ms(t.DurationMs), code, t.Reason)
	}
	tw.Flush()
	printViolations(w, o.Tasks)
}

// cacheText is a task's cache verdict with where a hit came from: "hit
// (remote)".
func cacheText(cache, source string) string {
	if source == "" {
		return cache
	}
	return cache + " (" + source + ")"
}
