// Package cli is vx's command line (vxd's is cli/vxd): each verb parses
// its flags, calls one operation, and renders the answer for people or as
// JSON. No logic lives here beyond that.
package cli

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

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/remotecache"
	"github.com/vzn/vx/daemon/runevents"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// IO is where a command reads and writes.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	Dir      string // working directory; "" = os.Getwd
	Environ  []string
}

func (s *IO) dir() string {
	if s.Dir != "" {
		return s.Dir
	}
	d, _ := os.Getwd()
	return d
}

func (s *IO) environ() []string {
	if s.Environ != nil {
		return s.Environ
	}
	return os.Environ()
}

// exitError carries an exit code without a message of its own.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError is a refusal of the command line itself (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

type verb struct {
	name    string
	summary string
	run     func(ctx context.Context, s *IO, argv []string) error
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
		{"version", "print the version", func(ctx context.Context, s *IO, argv []string) error {
			fmt.Fprintf(s.Out, "vx %s\n", version.Version)
			return nil
		}},
	}
}

// Run is the vx command line. It returns the process exit code.
func Run(ctx context.Context, argv []string, s *IO) int {
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

func exitCode(s *IO, err error) int { return Exit(s, "vx", err) }

// loadModel finds and loads the workspace from the IO's directory. A
// workspace that cannot be found or loaded is a refusal (exit 2).
func loadModel(s *IO) (*workspace.Model, error) {
	root, err := workspace.FindRoot(s.dir())
	if err != nil {
		return nil, usageError{err.Error()}
	}
	m, err := workspace.Load(root)
	if err != nil {
		// The error may quote the file; what it declares secret is masked
		// even though it did not load.
		mask := secret.NewMasker(workspace.SecretValues(root, nil, environMap(s))...)
		return nil, usageError{mask.String(err.Error())}
	}
	return m, nil
}

// maskerFor masks the model's secret values in error texts and answers.
func maskerFor(m *workspace.Model, s *IO) *secret.Masker {
	if m == nil {
		return secret.NewMasker()
	}
	return secret.NewMasker(workspace.SecretValues(m.Root, m, environMap(s))...)
}

func environMap(s *IO) map[string]string {
	env := map[string]string{}
	for _, kv := range s.environ() {
		if i := strings.IndexByte(kv, '='); i > 0 {
			env[kv[:i]] = kv[i+1:]
		}
	}
	return env
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func logger(s *IO) zerolog.Logger {
	if os.Getenv("VX_LOG") == "" {
		return zerolog.Nop()
	}
	lvl, err := zerolog.ParseLevel(os.Getenv("VX_LOG"))
	if err != nil {
		lvl = zerolog.DebugLevel
	}
	return zerolog.New(s.Err).Level(lvl).With().Timestamp().Logger()
}

var runFlags = func() map[string]flagSpec {
	return map[string]flagSpec{
		"filter":      {kind: multiFlag, arg: "SEL", help: "only projects matching SEL: a name or glob, tag:NAME, ./path/glob (repeatable)"},
		"affected":    {kind: optionalFlag, arg: "REF", help: "only projects changed against REF (default: merge base with the default branch) and their dependents"},
		"force":       {kind: boolFlag, help: "ignore cache hits: execute every task"},
		"continue":    {kind: boolFlag, help: "keep running independent tasks after a failure"},
		"concurrency": {kind: valueFlag, arg: "N", help: "worker count (default: config workers, else one per CPU)"},
		"dry":         {kind: optionalFlag, arg: "json", help: "print what would run, execute nothing (--dry=json for JSON)"},
		"format":      {kind: valueFlag, arg: "text|json", help: "json: the run summary as one JSON document on stdout"},
		"cache":       {kind: valueFlag, arg: "local:rw,remote:rw", help: "which caches to read (r) and write (w); a side left out or empty is off"},
		"input":       {kind: valueFlag, arg: "-", help: "read the run's request as JSON on stdin (how vxd's runTasks starts a run) and answer in JSON; no tasks or selection flags beside it"},
	}
}

func runVerb(ctx context.Context, s *IO, argv []string) error {
	a, err := parseArgs("run", argv, runFlags())
	if err != nil {
		return usageError{err.Error()}
	}
	if a.bool("help") {
		fmt.Fprint(s.Out, a.usage("run TASK... [flags]"))
		return nil
	}
	format, err := a.format()
	if err != nil {
		return usageError{err.Error()}
	}
	req, err := readRunRequest(s, a)
	if err != nil {
		return err
	}
	if req != nil {
		format = "json"
	}
	conc, err := a.int("concurrency", 0)
	if err != nil || conc < 0 {
		return usageError{fmt.Sprintf("vx run: --concurrency %q is not a worker count (use a positive whole number)", a.str("concurrency"))}
	}
	if !a.has("concurrency") && os.Getenv("VX_CONCURRENCY") != "" {
		if conc, err = strconv.Atoi(os.Getenv("VX_CONCURRENCY")); err != nil || conc <= 0 {
			return usageError{fmt.Sprintf("VX_CONCURRENCY=%q is not a worker count (use a positive whole number, or unset it)", os.Getenv("VX_CONCURRENCY"))}
		}
	}
	dry := a.has("dry")
	if dry && a.str("dry") != "" && a.str("dry") != "json" && a.str("dry") != "text" {
		return usageError{fmt.Sprintf("vx run: --dry=%s is not a dry-run format (use --dry or --dry=json)", a.str("dry"))}
	}
	// A run is a short-lived process that allocates little it keeps:
	// collect less often, from the start (loading and keys allocate most).
	debug.SetGCPercent(400)
	var cacheMode *remotecache.Mode
	if a.has("cache") {
		mode, err := remotecache.ParseMode(a.str("cache"))
		if err != nil {
			return usageError{"vx run: " + err.Error()}
		}
		cacheMode = &mode
	}
	m, err := loadModel(s)
	if err != nil {
		return err
	}
	a.takeRef("affected", refNotTask(m))
	mask := maskerFor(m, s)
	opts := &runner.Options{
		Model: m, Tasks: a.pos, Force: a.bool("force"), Continue: a.bool("continue"), Concurrency: conc,
		Selection: workspace.Selection{Filters: a.list("filter"), Affected: a.has("affected"), AffectedRef: a.str("affected")},
		Args:      append([]string{"run"}, argv...), Environ: s.environ(), Logger: logger(s), Cache: cacheMode,
		Changes: changeSource(m.Root),
	}
	if req != nil {
		req.Apply(opts)
	}
	p, err := runner.Prepare(ctx, opts)
	if err != nil {
		// Unknown tasks, bad filters, cycles: nothing ran.
		return usageError{mask.String(err.Error())}
	}
	if dry {
		plan, err := runner.Plan(ctx, p, opts.Force)
		if err != nil {
			return err
		}
		if a.str("dry") == "json" || format == "json" {
			return writeJSON(s.Out, plan)
		}
		renderPlan(s.Out, plan)
		return nil
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := runner.Output{W: s.Out}
	if format == "json" {
		out = runner.Output{W: s.Err}
	}
	if fd := os.Getenv(ops.EventsFDEnv); fd != "" {
		out.Events = eventWriter(fd)
	} else if ev, closeEv := runevents.Open(m.Root); ev != nil {
		// A daemon is up: it tails this run's events for its live feed.
		out.Events = ev
		defer closeEv()
	}
	sum, err := runner.Execute(ctx, p, opts, out)
	if err != nil {
		return errors.New(mask.String(err.Error()))
	}
	if format == "json" {
		if err := writeJSON(s.Out, sum); err != nil {
			return err
		}
	}
	pushRun(ctx, s, m, sum, mask.String)
	if sum.ExitCode != 0 {
		return exitError{sum.ExitCode}
	}
	return nil
}

func renderPlan(w io.Writer, plan *wire.Plan) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tCACHE\tP50\tDEPENDS ON\tKEY")
	for _, t := range plan.Tasks {
		p50 := "-"
		if t.P50Ms != nil {
			p50 = fmtMs(*t.P50Ms)
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
	fmt.Fprintf(w, "\n%d tasks; predicted wall %s, work %s on %d workers", len(plan.Tasks), fmtMs(pr.WallMs), fmtMs(pr.WorkMs), pr.Workers)
	if len(pr.Unknown) > 0 {
		fmt.Fprintf(w, " (%d without history)", len(pr.Unknown))
	}
	fmt.Fprintln(w)
	if len(pr.CriticalPath) > 0 {
		fmt.Fprintf(w, "critical path: %s\n", strings.Join(pr.CriticalPath, " → "))
	}
}

func fmtMs(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
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
