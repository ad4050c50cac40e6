package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/vzn/vx/daemon/ops"
)

func lastVerb(ctx context.Context, s *IO, argv []string) error {
	a, err := parseArgs("last", argv, map[string]flagSpec{
		"list":   {kind: boolFlag, help: "list the latest runs"},
		"limit":  {kind: valueFlag, arg: "N", help: "with --list: how many runs (1..500, default 20)"},
		"run":    {kind: valueFlag, arg: "ID", help: "a run id or unique prefix (default: the latest run)"},
		"log":    {kind: valueFlag, arg: "TASK", help: "print a task's log (project#task)"},
		"format": {kind: valueFlag, arg: "text|json", help: "output format"},
	})
	if err != nil {
		return usageError{err.Error()}
	}
	if a.bool("help") {
		fmt.Fprint(s.Out, a.usage("last [--list] [--run ID] [--log PROJECT#TASK] [flags]"))
		return nil
	}
	format, err := a.format()
	if err != nil {
		return usageError{err.Error()}
	}
	if len(a.pos) > 0 {
		return usageError{fmt.Sprintf("vx last takes no arguments (got %q); use --run ID or --log PROJECT#TASK", a.pos[0])}
	}
	e, err := opEnv(s)
	if err != nil {
		return err
	}
	defer e.Close()
	switch {
	case a.bool("list"):
		limit, err := a.int("limit", 0)
		if err != nil {
			return usageError{err.Error()}
		}
		out, err := ops.Runs(ctx, e, ops.RunsInput{Limit: limit, LimitSet: a.has("limit")})
		return answer(s, format, out, err, renderRuns)
	case a.has("log"):
		out, err := ops.TaskLog(ctx, e, ops.TaskLogInput{TaskID: a.str("log"), RunID: a.str("run"), RunSet: a.has("run")})
		return answer(s, format, out, err, func(w io.Writer, o *ops.TaskLogOutput) {
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
		out, err := ops.Run(ctx, e, ops.RunInput{RunID: a.str("run"), IDSet: a.has("run")})
		return answer(s, format, out, err, renderRun)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", r.ID, fmtTime(r.StartedAt), r.Status, r.Tasks, r.Cached, r.Failed, fmtMs(r.DurationMs), r.Command)
	}
	tw.Flush()
}

func renderRun(w io.Writer, o *ops.RunOutput) {
	if !o.Found {
		fmt.Fprintln(w, o.Note)
		return
	}
	r := o.Run
	fmt.Fprintf(w, "run %s  %s  %s  %s\n  %s\n\n", r.ID, fmtTime(r.StartedAt), r.Status, fmtMs(r.DurationMs), r.Command)
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATUS\tCACHE\tTIME\tEXIT\tREASON")
	for _, t := range o.Tasks {
		code := "-"
		if t.ExitCode != nil {
			code = fmt.Sprint(*t.ExitCode)
		}
		cacheCol := t.Cache
		if t.CacheSource != "" {
			cacheCol += " (" + t.CacheSource + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.TaskID, t.Status, cacheCol, fmtMs(t.DurationMs), code, t.Reason)
	}
	tw.Flush()
	printViolations(w, o.Tasks)
}
