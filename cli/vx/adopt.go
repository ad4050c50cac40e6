package vx

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

var pruneBinding = cmdline.Bind(reflect.TypeFor[ops.PruneInput]())

func cacheVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	if len(argv) > 0 && argv[0] == "status" {
		return cacheStatusVerb(ctx, s, argv[1:])
	}
	if len(argv) == 0 || argv[0] != "prune" {
		if len(argv) > 0 && (argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
			fmt.Fprintln(s.Out, "usage: vx cache prune [--older-than AGE] [--max-size SIZE] [--dry-run] [--format json]\n       vx cache status [--format json]")
			return nil
		}
		return cmdline.UsageError("vx cache takes a subcommand: `vx cache prune [--older-than 7d] [--max-size 2GiB] [--dry-run]` or `vx cache status`")
	}
	b := pruneBinding
	a, format, help, err := cmdline.Command(s, cmdline.Verb{Name: "cache prune", Synopsis: "cache prune [flags]", Answers: true,
		Bind: b}, argv[1:])
	if help || err != nil {
		return err
	}
	root, err := workspace.FindRoot(s.WorkingDir())
	if err != nil {
		return err
	}
	e := ops.NewEnv(root, nil, nil, s.Environment())
	var in ops.PruneInput
	if err := fill(b, a, &in); err != nil {
		return err
	}
	out, err := ops.Prune(ctx, e, in)
	return answer(s, b, format, out, err, func(w io.Writer, r *cache.PruneResult) {
		verb := "evicted"
		if r.DryRun {
			verb = "would evict"
		}
		fmt.Fprintf(w, "%s %d entries (%s), %d orphans (%s); %d entries (%s) remain\n", verb, len(r.Evicted), bytesText(r.BytesFreed), r.Orphans, bytesText(r.OrphanBytes), r.Entries, bytesText(r.Bytes))
		for _, ev := range r.Evicted {
			fmt.Fprintf(w, "  %s  %-30s %8s  %s\n", shortKey(ev.Key), ev.TaskID, bytesText(ev.Bytes), ev.Reason)
		}
	})
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// lockFlags are vx lock's flags.
type lockFlags struct {
	Check bool `flag:"check" help:"compare the configuration with vx.lock; exit 1 on drift"`
}

var lockBinding = cmdline.Bind(reflect.TypeFor[lockFlags]())

func lockVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, format, e, err := question(s, cmdline.Verb{Name: "lock", Synopsis: "lock [--check] [flags]", Answers: true,
		Bind: lockBinding}, argv, opEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	var f lockFlags
	if err := lockBinding.Fill(a, &f); err != nil {
		return err
	}
	if !f.Check {
		out, err := ops.Lock(ctx, e)
		if err != nil {
			return err
		}
		if format == "json" {
			return cmdline.WriteJSON(s.Out, out)
		}
		state := "unchanged"
		if out.Changed {
			state = "written"
		}
		fmt.Fprintf(s.Out, "%s %s: %d task definitions recorded\n", lockfile.Name, state, out.Tasks)
		return nil
	}
	res, err := ops.CheckLock(ctx, e)
	if err != nil {
		return err
	}
	if format == "json" {
		if err := cmdline.WriteJSON(s.Out, res); err != nil {
			return err
		}
	} else {
		renderLockCheck(s.Out, res)
	}
	if res.ExitCode != 0 {
		return cmdline.ExitCode(res.ExitCode)
	}
	return nil
}

func renderLockCheck(w io.Writer, r *lockfile.CheckResult) {
	if r.UpToDate {
		fmt.Fprintf(w, "%s is up to date: %d tasks audited\n", lockfile.Name, len(r.Audited))
		return
	}
	if r.Note != "" {
		fmt.Fprintln(w, r.Note)
	}
	fmt.Fprintf(w, "%d audited, %d not audited, %d drift(s):\n", len(r.Audited), len(r.NotAudited), len(r.Problems))
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	for _, p := range r.Problems {
		fmt.Fprintf(tw, "  %s\t%s\tlocked: %s\tnow: %s\n", p.TaskID, p.Field, p.Locked, p.Current)
	}
	tw.Flush()
	fmt.Fprintln(w, "review the change, then run `vx lock` to record it")
}

var infoBinding = cmdline.Bind(reflect.TypeFor[ops.InfoInput]())

func infoVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	b := infoBinding
	a, format, e, err := question(s, cmdline.Verb{Name: "info", Synopsis: "info [flags]", Answers: true,
		Bind: b}, argv, anyEnv)
	if e == nil {
		return err
	}
	defer e.Close()
	var in ops.InfoInput
	if err := fill(b, a, &in); err != nil {
		return err
	}
	root := e.Root
	if st, _, err := (&client.Client{Root: root}).Status(ctx); err == nil {
		in.Daemon = func() *wire.Status { return st }
	} else {
		in.DaemonNote = "not running (vx mcp or vxd start starts it)"
	}
	out, err := ops.Info(ctx, e, in)
	return answer(s, b, format, out, err, renderInfo)
}

func renderInfo(w io.Writer, o *ops.InfoOutput) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("vx", fmt.Sprintf("%s (key %s, cache format %d, history schema %d, %s)", o.Versions.VX, o.Versions.Key, o.Versions.CacheFormat, o.Versions.HistorySchema, o.Versions.Go))
	row("workspace", o.Root)
	for _, e := range o.ConfigErrors {
		row("config error", e)
	}
	row("projects", fmt.Sprintf("%d: %s", o.Projects, strings.Join(o.ProjectNames, ", ")))
	row("tasks", strings.Join(o.Tasks, ", "))
	if len(o.RootTasks) > 0 {
		row("root tasks", strings.Join(o.RootTasks, ", "))
	}
	row("workers", o.Workers.Value+" ("+o.Workers.Source+")")
	if n, err := strconv.ParseInt(o.MemoryBudget.Value, 10, 64); err == nil {
		row("memory budget", bytesText(n)+" ("+o.MemoryBudget.Source+")")
	}
	row("cache", fmt.Sprintf("%d entries, %s in %s", o.Cache.Entries, bytesText(o.Cache.Bytes), o.Cache.Dir))
	row("remote cache", remoteText(o.RemoteCache))
	hist := fmt.Sprintf("%d runs, %d task executions", o.History.Runs, o.History.Executions)
	if o.History.Error != "" {
		hist = o.History.Error
	}
	row("history", hist)
	flaky := "none"
	if len(o.Flaky) > 0 {
		flaky = strings.Join(o.Flaky, ", ")
	}
	row("flaky tasks", flaky)
	for _, ov := range o.OutputOverlaps {
		row("outputs overlap", ops.OverlapText(ov))
	}
	if l := o.Lock; l != nil {
		switch {
		case l.Error != "":
			row("lock", l.Error)
		case !l.Present:
			row("lock", "no vx.lock (run `vx lock`)")
		case l.UpToDate:
			row("lock", "vx.lock up to date")
		default:
			row("lock", fmt.Sprintf("vx.lock has %d drift(s): `vx lock --check`", l.Problems))
		}
	}
	if o.Daemon != nil {
		row("daemon", fmt.Sprintf("vxd %s pid %d at %s, %d sessions", o.Daemon.Version, o.Daemon.PID, o.Daemon.URL, o.Daemon.Sessions))
	} else {
		row("daemon", o.DaemonNote)
	}
	mcp := o.MCP.RunTasks
	if mcp == "allow-list" {
		mcp += ": " + strings.Join(o.MCP.Allowed, ", ")
	}
	row("mcp runTasks", mcp)
	row("sandbox", sandboxVerdictText(o.Sandbox))
	if o.Git.Branch != "" || o.Git.Commit != "" {
		row("git", strings.TrimSpace(o.Git.Branch+" "+shortKey(o.Git.Commit)))
	}
	tw.Flush()
}
