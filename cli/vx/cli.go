// Package vx is vx's command line (vxd's is cli/vxd): each verb parses
// its flags, calls one operation, and renders the answer for people or as
// JSON. No logic lives here beyond that.
package vx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/remotecache"
	"github.com/vzn/vx/daemon/runevents"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

type verb struct {
	name    string
	summary string
	run     func(ctx context.Context, s *cmdline.IO, argv []string) error
}

func vxVerbs() []verb {
	return []verb{
		{"run", "run tasks across the workspace, with the cache", runVerb},
		{"show", "show projects, tasks and resolved task configuration", showVerb},
		{"why", "explain why a task re-ran: its key against the previous one", whyVerb},
		{"last", "the latest runs, one run's tasks, or a task's log", lastVerb},
		{"cache", "cache maintenance and the remote: vx cache prune, vx cache status", cacheVerb},
		{"lock", "record task definitions in vx.lock, or check them", lockVerb},
		{"docs", "search the reference", docsVerb},
		{"init", "propose a vx.workspace.json (migrating turbo.json / nx.json)", initVerb},
		{"info", "versions, workspace, workers, cache, lock, daemon and MCP settings", infoVerb},
		{"mcp", "the stdio MCP server for agents (bridges to vxd)", mcpVerb},
		{"push", "send runs waiting in .vx/outbox (--all: the local history) to the team platform", pushVerb},
		{"doctor", "what stops vx working here, each with its fix", doctorVerb},
		{"version", "print the version", func(ctx context.Context, s *cmdline.IO, argv []string) error {
			fmt.Fprintf(s.Out, "vx %s\n", version.Version)
			return nil
		}},
	}
}

// Run is the vx command line. It returns the process exit code.
func Run(ctx context.Context, argv []string, s *cmdline.IO) int {
	verbs := vxVerbs()
	if len(argv) == 0 || argv[0] == "help" || argv[0] == "--help" || argv[0] == "-h" {
		printHelp(s.Out, verbs)
		return 0
	}
	if argv[0] == "--version" {
		argv[0] = "version"
	}
	for _, v := range verbs {
		if v.name == argv[0] {
			return exitCode(s, v.run(ctx, s, argv[1:]))
		}
	}
	names := make([]string, 0, len(verbs))
	for _, v := range verbs {
		names = append(names, v.name)
	}
	fmt.Fprintf(s.Err, "vx: unknown command %q%s; run `vx help`\n", argv[0], workspace.CloseHint(argv[0], names))
	return 2
}

func printHelp(w io.Writer, verbs []verb) {
	fmt.Fprintf(w, "vx %s: a monorepo task runner with a content-addressed cache and run history\n\nusage: vx <command> [flags]\n\ncommands:\n", version.Version)
	for _, v := range verbs {
		fmt.Fprintf(w, "  %-8s %s\n", v.name, v.summary)
	}
	fmt.Fprintf(w, "\nEvery command takes --help. Commands that answer a question take --format json.\n")
}

func exitCode(s *cmdline.IO, err error) int { return cmdline.Exit(s, "vx", err) }

// loadModel finds and loads the workspace from the IO's directory. A
// workspace that cannot be found or loaded is a refusal (exit 2).
func loadModel(s *cmdline.IO) (*workspace.Model, error) {
	root, err := workspace.FindRoot(s.WorkingDir())
	if err != nil {
		return nil, cmdline.UsageError(err.Error())
	}
	m, err := workspace.Load(root)
	if err != nil {
		// The error may quote the file; what it declares secret is masked
		// even though it did not load.
		mask := secret.NewMasker(workspace.SecretValues(root, nil, environMap(s))...)
		return nil, cmdline.UsageError(mask.String(err.Error()))
	}
	return m, nil
}

// maskerFor masks the model's secret values in error texts and answers.
func maskerFor(m *workspace.Model, s *cmdline.IO) *secret.Masker {
	if m == nil {
		return secret.NewMasker()
	}
	return secret.NewMasker(workspace.SecretValues(m.Root, m, environMap(s))...)
}

func environMap(s *cmdline.IO) map[string]string {
	env := map[string]string{}
	for _, kv := range s.Environment() {
		if i := strings.IndexByte(kv, '='); i > 0 {
			env[kv[:i]] = kv[i+1:]
		}
	}
	return env
}

func logger(s *cmdline.IO) zerolog.Logger {
	if os.Getenv("VX_LOG") == "" {
		return zerolog.Nop()
	}
	lvl, err := zerolog.ParseLevel(os.Getenv("VX_LOG"))
	if err != nil {
		lvl = zerolog.DebugLevel
	}
	return zerolog.New(s.Err).Level(lvl).With().Timestamp().Logger()
}

var runFlags = func() map[string]cmdline.Spec {
	return map[string]cmdline.Spec{
		"filter":      {Kind: cmdline.Multi, Arg: "SEL", Help: "only projects matching SEL: a name or glob, tag:NAME, ./path/glob (repeatable)"},
		"affected":    {Kind: cmdline.Optional, Arg: "REF", Help: "only projects changed against REF (default: merge base with the default branch) and their dependents"},
		"force":       {Kind: cmdline.Bool, Help: "ignore cache hits: execute every task"},
		"continue":    {Kind: cmdline.Bool, Help: "keep running independent tasks after a failure"},
		"concurrency": {Kind: cmdline.Value, Arg: "N", Help: "worker count (default: config workers, else one per CPU)"},
		"dry":         {Kind: cmdline.Optional, Arg: "json", Help: "print what would run, execute nothing (--dry=json for JSON)"},
		"format":      {Kind: cmdline.Value, Arg: "text|json", Help: "json: the run summary as one JSON document on stdout"},
		"cache":       {Kind: cmdline.Value, Arg: "local:rw,remote:rw", Help: "which caches to read (r) and write (w); a side left out or empty is off"},
		"input":       {Kind: cmdline.Value, Arg: "-", Help: "read the run's request as JSON on stdin (how vxd's runTasks starts a run) and answer in JSON; no tasks or selection flags beside it"},
	}
}

func runVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, err := cmdline.Parse("run", argv, runFlags())
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	if a.Bool("help") {
		fmt.Fprint(s.Out, a.Usage("run TASK... [flags]"))
		return nil
	}
	format, err := a.Format()
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	req, err := readRunRequest(s, a)
	if err != nil {
		return err
	}
	if req != nil {
		format = "json"
	}
	conc, err := a.Int("concurrency", 0)
	if err != nil || conc < 0 {
		return cmdline.UsageError(fmt.Sprintf("vx run: --concurrency %q is not a worker count (use a positive whole number)", a.Str("concurrency")))
	}
	if !a.Has("concurrency") && os.Getenv("VX_CONCURRENCY") != "" {
		if conc, err = strconv.Atoi(os.Getenv("VX_CONCURRENCY")); err != nil || conc <= 0 {
			return cmdline.UsageError(fmt.Sprintf("VX_CONCURRENCY=%q is not a worker count (use a positive whole number, or unset it)", os.Getenv("VX_CONCURRENCY")))
		}
	}
	dry := a.Has("dry")
	if dry && a.Str("dry") != "" && a.Str("dry") != "json" && a.Str("dry") != "text" {
		return cmdline.UsageError(fmt.Sprintf("vx run: --dry=%s is not a dry-run format (use --dry or --dry=json)", a.Str("dry")))
	}
	// A run is a short-lived process that allocates little it keeps:
	// collect less often, from the start (loading and keys allocate most).
	debug.SetGCPercent(400)
	var cacheMode *remotecache.Mode
	if a.Has("cache") {
		mode, err := remotecache.ParseMode(a.Str("cache"))
		if err != nil {
			return cmdline.UsageError("vx run: " + err.Error())
		}
		cacheMode = &mode
	}
	m, err := loadModel(s)
	if err != nil {
		return err
	}
	a.TakeRef("affected", refNotTask(m))
	in := ops.ExecuteInput{
		Tasks: a.Pos(), Force: a.Bool("force"), Continue: a.Bool("continue"), Concurrency: conc,
		Selection: workspace.Selection{Filters: a.List("filter"), Affected: a.Has("affected"), AffectedRef: a.Str("affected")},
		Command:   append([]string{"run"}, argv...), Environ: s.Environment(), Logger: logger(s), Cache: cacheMode,
	}
	if req != nil {
		req.apply(&in)
	}
	e := ops.NewEnv(m.Root, m, nil, s.Environment())
	if dry {
		plan, err := ops.Plan(ctx, e, in)
		if err != nil {
			return runRefusal(err)
		}
		if a.Str("dry") == "json" || format == "json" {
			return cmdline.WriteJSON(s.Out, plan)
		}
		renderPlan(s.Out, plan)
		return nil
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	in.Output = runner.Output{W: s.Out}
	if format == "json" {
		in.Output = runner.Output{W: s.Err}
	}
	if fd := os.Getenv(ops.EventsFDEnv); fd != "" {
		in.Output.Events = eventWriter(fd)
	} else if ev, closeEv := runevents.Open(m.Root); ev != nil {
		// A daemon is up: it tails this run's events for its live feed.
		in.Output.Events = ev
		defer closeEv()
	}
	sum, err := ops.Execute(ctx, e, in)
	if err != nil {
		return runRefusal(err)
	}
	if format == "json" {
		if err := cmdline.WriteJSON(s.Out, sum); err != nil {
			return err
		}
	}
	pushRun(ctx, s, m, sum, e.Masker.String)
	if sum.ExitCode != 0 {
		return cmdline.ExitCode(sum.ExitCode)
	}
	return nil
}

// runRefusal is a usage error (exit 2) when the run was refused before
// anything ran (unknown tasks, bad filters, cycles), else err.
func runRefusal(err error) error {
	var re *ops.RefusalError
	if errors.As(err, &re) {
		return cmdline.UsageError(re.Msg)
	}
	return err
}

func renderPlan(w io.Writer, plan *wire.Plan) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tCACHE\tP50\tDEPENDS ON\tKEY")
	for _, t := range plan.Tasks {
		p50 := "-"
		if t.P50Ms != nil {
			p50 = cmdline.Ms(*t.P50Ms)
		}
		deps := strings.Join(t.DependsOn, ",")
		if deps == "" {
			deps = "-"
		}
		cacheCol := t.Cache
		if t.CacheSource != "" {
			cacheCol += " (" + t.CacheSource + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.TaskID, cacheCol, p50, deps, shortKey(t.Key))
	}
	tw.Flush()
	pr := plan.Predicted
	fmt.Fprintf(w, "\n%d tasks; predicted wall %s, work %s on %d workers", len(plan.Tasks), cmdline.Ms(pr.WallMs), cmdline.Ms(pr.WorkMs), pr.Workers)
	if len(pr.Unknown) > 0 {
		fmt.Fprintf(w, " (%d without history)", len(pr.Unknown))
	}
	fmt.Fprintln(w)
	if len(pr.CriticalPath) > 0 {
		fmt.Fprintf(w, "critical path: %s\n", strings.Join(pr.CriticalPath, " → "))
	}
}

func shortKey(k string) string {
	if len(k) > 12 {
		return k[:12]
	}
	return k
}

// eventWriter writes run events as JSON lines to an inherited descriptor
// (the daemon's runTasks reads them for progress and its live feed).
func eventWriter(fd string) func(wire.Event) {
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return nil
	}
	// Tasks must not inherit the pipe: a process a task leaves behind would
	// keep it open (and could write into the feed).
	syscall.CloseOnExec(n)
	f := os.NewFile(uintptr(n), "events")
	if f == nil {
		return nil
	}
	var mu sync.Mutex
	enc := json.NewEncoder(f)
	return func(e wire.Event) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(e)
	}
}

// refNotTask accepts an argument as --affected's REF when it is no task
// of the workspace but names a commit in its git repository.
func refNotTask(m *workspace.Model) func(string) bool {
	return func(arg string) bool {
		if m.KnownTask(arg) || strings.Contains(arg, "#") {
			return false
		}
		cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", arg+"^{commit}")
		cmd.Dir = m.Root
		return cmd.Run() == nil
	}
}
