// Package vx is vx's command line (vxd's is cli/vxd): each verb parses
// its flags, calls one operation, and renders the answer for people or as
// JSON. No logic lives here beyond that.
package vx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/cli/live"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/plans"
	"github.com/vzn/vx/daemon/remotecache"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/gcpace"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

// program is vx's command line: its verbs, each a thin adapter.
var program = cmdline.Program{
	Name:   "vx",
	About:  "a monorepo task runner with a content-addressed cache and run history",
	Footer: "\nEvery command above takes --help (a plugin command gets --help as its own argument). Commands that answer a question take --format json.\n",
	Hint:   workspace.CloseHint,
	More:   pluginCommands,
	Commands: []cmdline.Subcommand{
		{Name: "run", Summary: "run tasks across the workspace, with the cache", Run: runVerb},
		{Name: "show", Summary: "show projects, tasks and resolved task configuration", Run: showVerb},
		{Name: "config", Summary: "print vx.workspace.json as written, secret values masked", Run: configVerb},
		{Name: "why", Summary: "explain why a task re-ran: its key against the previous one", Run: whyVerb},
		{Name: "last", Summary: "the latest runs, one run's tasks, or a task's log", Run: lastVerb},
		{Name: "cache", Summary: "cache maintenance and the remote: vx cache prune, vx cache status", Run: cacheVerb},
		{Name: "lock", Summary: "record task definitions in vx.lock, or check them", Run: lockVerb},
		{Name: "docs", Summary: "search the reference", Run: docsVerb},
		{Name: "init", Summary: "propose a vx.workspace.json (migrating turbo.json / nx.json)", Run: initVerb},
		{Name: "info", Summary: "versions, workspace, workers, cache, lock, daemon and MCP settings", Run: infoVerb},
		{Name: "mcp", Summary: "the stdio MCP server for agents (bridges to vxd)", Run: mcpVerb},
		{Name: "push", Summary: "send runs waiting in .vx/outbox (--all: the local history) to the team platform", Run: pushVerb},
		{Name: "doctor", Summary: "what stops vx working here, each with its fix", Run: doctorVerb},
		{Name: "approve", Summary: "approve a plan an agent made under mcp.confirm (a person's act, never an MCP tool)", Run: approveVerb},
	},
}

// Run is the vx command line. It returns the process exit code.
func Run(ctx context.Context, argv []string, s *cmdline.IO) int { return program.Run(ctx, argv, s) }

// loadModel finds and loads the workspace from the IO's directory. A
// workspace that cannot be found or loaded is a refusal (exit 2).
func loadModel(s *cmdline.IO) (*workspace.Model, error) {
	return loadModelListed(s, workspace.Listed{})
}

// loadModelListed is loadModel for a run that lists the workspace's files
// anyway (listed: that listing, for the plugins; zero: none).
func loadModelListed(s *cmdline.IO, listed workspace.Listed) (*workspace.Model, error) {
	root, err := workspace.FindRoot(s.WorkingDir())
	if err != nil {
		return nil, cmdline.UsageError(err.Error())
	}
	m, err := workspace.LoadReusingListed(root, listed)
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

// runFlags are vx run's command line.
type runFlags struct {
	Tasks       []string      `pos:"TASK..."`
	Filter      []string      `flag:"filter" arg:"SEL" help:"only projects matching SEL: a name or glob, tag:NAME, ./path/glob; web... ...web !SEL as in turbo (repeatable)"`
	Affected    cmdline.Maybe `flag:"affected" arg:"REF" help:"only projects changed against REF (default: merge base with the default branch) and their dependents"`
	Force       bool          `flag:"force" help:"ignore cache hits: execute every task"`
	Continue    bool          `flag:"continue" help:"keep running independent tasks after a failure"`
	Concurrency *string       `flag:"concurrency" arg:"N" help:"worker count (default: config workers, else one per CPU)"`
	Dry         cmdline.Maybe `flag:"dry" arg:"json" help:"print what would run, execute nothing (--dry=json for JSON)"`
	// Format says more than "output format", so Command does not
	// declare it (run is no Answers verb).
	Format string  `flag:"format" arg:"text|json" help:"json: the run summary as one JSON document on stdout"`
	Cache  *string `flag:"cache" arg:"local:rw,remote:rw" help:"which caches to read (r) and write (w); a side left out or empty is off"`
	Plan   *string `flag:"plan" arg:"FILE" help:"run exactly the plan vx run --dry=json wrote to FILE, refusing (exit 1) when it expired or anything it was planned against moved"`
	UI     *string `flag:"ui" arg:"tui|stream" help:"tui: a live status area under the task lines on a terminal (the default there); stream: task lines alone (default: config ui, else tui)"`
	Input  *string `flag:"input" arg:"-" help:"read the run's request as JSON on stdin (how vxd's runTasks starts a run) and answer in JSON; no tasks or selection flags beside it"`
}

var runBinding = cmdline.Bind(reflect.TypeFor[runFlags]())

// selecting names the first flag given that selects tasks beside the
// tasks themselves ("" for none): what --input - and --plan refuse.
func (f *runFlags) selecting() string {
	switch {
	case len(f.Filter) > 0:
		return "filter"
	case f.Affected.Given:
		return "affected"
	case f.Force:
		return "force"
	case f.Dry.Given:
		return "dry"
	}
	return ""
}

func runVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, _, help, err := cmdline.Command(s, cmdline.Verb{Name: "run", Synopsis: "run TASK... [flags]", Bind: runBinding}, argv)
	if help || err != nil {
		return err
	}
	var f runFlags
	if err := runBinding.Fill(a, &f); err != nil {
		return err
	}
	format, req, planned, err := runSources(s, a, &f)
	if err != nil {
		return err
	}
	ctx, endLife := ops.LifelineContext(ctx)
	defer endLife()
	in, err := runSettings(&f)
	if err != nil {
		return err
	}
	// The collector's pace follows the live heap (internal/gcpace): a
	// small workspace's run never collects, a large one's heap stays
	// within a quarter of what it holds.
	gcpace.Start()
	var ahead *ops.Ahead
	if root, err := workspace.FindRoot(s.WorkingDir()); err == nil {
		ahead = ops.NewAhead(root, s.WorkingDir(), changeSource(s, root))
		if !f.Dry.Given && planned == nil {
			// With vxd up, an identical run may repeat the last one.
			q := in
			fillRun(&q, s, &f, argv, req)
			if sum, err := repeatRun(ctx, s, ahead, root, q, format); sum != nil || err != nil {
				if err != nil {
					return err
				}
				return finishRun(s, sum, format, nil)
			}
		}
		// The listing, the stat cache and the history need only the root:
		// they get going while the workspace loads.
		ahead.Start(ctx, logger(s), !f.Dry.Given)
		defer ahead.Close()
	}
	m, err := loadModelListed(s, ahead.Listing())
	if err != nil {
		return err
	}
	a.TakeRef("affected", refNotTask(m))
	if err := runBinding.Fill(a, &f); err != nil {
		return err
	}
	fillRun(&in, s, &f, argv, req)
	ahead.Complete(&in)
	e := ops.NewEnv(m.Root, m, nil, s.Environment())
	if f.Dry.Given {
		return dryRun(ctx, s, e, in, f.Dry.Value == "json" || format == "json")
	}
	if planned != nil {
		in.Command = append([]string{"run"}, argv...)
		if err := plans.CheckFile(ctx, e, in, planned, *f.Plan); err != nil {
			return planRefusal(err)
		}
	}
	return execute(ctx, s, e, in, format, liveView(s, f.UI, m, format))
}

// runSources reads what selects the run besides its tasks and flags:
// --format, the request of --input - (which answers in JSON), and the plan
// of --plan FILE (whose request runs).
func runSources(s *cmdline.IO, a *cmdline.Args, f *runFlags) (format string, req *wire.RunRequest, planned *wire.Plan, err error) {
	if format, err = a.Format(); err != nil {
		return "", nil, nil, cmdline.UsageError(err.Error())
	}
	if req, err = readRunRequest(s, f); err != nil {
		return "", nil, nil, err
	}
	if req != nil {
		format = "json"
	}
	if planned, err = readPlanFile(f); err != nil {
		return "", nil, nil, err
	}
	if planned != nil {
		req = planned.Request
	}
	return format, req, planned, nil
}

// dryRun prints what in would run, executing nothing: for people, or
// as the plan document vx run --plan applies.
func dryRun(ctx context.Context, s *cmdline.IO, e *ops.Env, in ops.ExecuteInput, asJSON bool) error {
	if !asJSON {
		plan, err := ops.Plan(ctx, e, in)
		if err != nil {
			return runRefusal(err)
		}
		renderPlan(s.Out, plan)
		return nil
	}
	plan, err := plans.Document(ctx, e, in)
	if err != nil {
		return runRefusal(err)
	}
	return cmdline.WriteJSON(s.Out, plan)
}

// fillRun puts the command line's (or the request's) selection in the
// run's input: tasks, filters, --affected, --force, --continue, and the
// command, environment and logger.
func fillRun(in *ops.ExecuteInput, s *cmdline.IO, f *runFlags, argv []string, req *wire.RunRequest) {
	in.Selection = wire.Selection{Tasks: f.Tasks, Filters: f.Filter, Affected: f.Affected.Given, AffectedRef: f.Affected.Value, Force: f.Force}
	in.Continue = f.Continue
	in.Command, in.Environ, in.Logger = append([]string{"run"}, argv...), s.Environment(), logger(s)
	if req != nil {
		in.Selection, in.Command = req.Selection, req.Command
	}
}

// repeatRun is ahead's Repeat, stopped by an interrupt, printing as a
// run does.
func repeatRun(ctx context.Context, s *cmdline.IO, ahead *ops.Ahead, root string, in ops.ExecuteInput, format string) (*wire.RunSummary, error) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return ahead.Repeat(ctx, in, func() (runner.Output, func()) {
		return runOutput(s, root, format)
	})
}

// runOutput is how a run prints (ops.ExecuteOutput): to stdout, or to
// stderr when the summary is the JSON on stdout.
func runOutput(s *cmdline.IO, root, format string) (runner.Output, func()) {
	if format == "json" {
		return ops.ExecuteOutput(s.Err, root)
	}
	return ops.ExecuteOutput(s.Out, root)
}

// finishRun prints the summary as JSON when asked, then does after (the
// platform's push, for an ordinary run), and exits with the run's code.
func finishRun(s *cmdline.IO, sum *wire.RunSummary, format string, after func()) error {
	if format == "json" {
		if err := cmdline.WriteJSON(s.Out, sum); err != nil {
			return err
		}
	}
	if after != nil {
		after()
	}
	if sum.ExitCode != 0 {
		return cmdline.ExitCode(sum.ExitCode)
	}
	return nil
}

// runSettings reads how vx run runs from its flags and environment
// (--concurrency, VX_CONCURRENCY, --dry's format, --cache), refusing a
// value that is none, before anything loads.
func runSettings(f *runFlags) (ops.ExecuteInput, error) {
	var in ops.ExecuteInput
	var conc int
	var err error
	if f.Concurrency != nil {
		if conc, err = strconv.Atoi(*f.Concurrency); err != nil || conc < 0 {
			return in, cmdline.UsageError(fmt.Sprintf("vx run: --concurrency %q is not a worker count (use a positive whole number)", *f.Concurrency))
		}
	} else if conc, err = ops.EnvConcurrency(os.Getenv("VX_CONCURRENCY")); err != nil {
		return in, cmdline.UsageError(err.Error())
	}
	in.Concurrency = conc
	if err := checkUIFlag(f.UI); err != nil {
		return in, err
	}
	if d := f.Dry.Value; f.Dry.Given && d != "" && d != "json" && d != "text" {
		return in, cmdline.UsageError(fmt.Sprintf("vx run: --dry=%s is not a dry-run format (use --dry or --dry=json)", d))
	}
	if f.Cache != nil {
		mode, err := remotecache.ParseMode(*f.Cache)
		if err != nil {
			return in, cmdline.UsageError("vx run: " + err.Error())
		}
		in.Cache = &mode
	}
	return in, nil
}

// execute runs in with the process's signals and event sink, prints the
// summary as JSON when asked, pushes the run to the platform, and exits
// with the run's code.
func execute(ctx context.Context, s *cmdline.IO, e *ops.Env, in ops.ExecuteInput, format string, view *live.View) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, closeOut := runOutput(s, e.Root, format)
	defer closeOut()
	in.Output = withView(out, view)
	if view != nil {
		// However the run ends, the terminal is left clean.
		defer view.Stop()
	}
	sum, err := ops.Execute(ctx, e, in)
	if err != nil {
		return runRefusal(err)
	}
	return finishRun(s, sum, format, func() { e.PushRun(ctx, sum, s.Err) })
}

// planRefusal is runRefusal for vx run --plan FILE, naming vx run.
func planRefusal(err error) error {
	var re *opkit.Refusal
	if errors.As(err, &re) {
		return cmdline.UsageError("vx run: " + re.Msg)
	}
	return fmt.Errorf("vx run: %w", err)
}

// runRefusal is a usage error (exit 2) when the run was refused before
// anything ran (unknown tasks, bad filters, cycles), else err.
func runRefusal(err error) error {
	var re *opkit.Refusal
	if errors.As(err, &re) {
		return cmdline.UsageError(re.Error())
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
		cacheCol := cacheText(t.Cache, t.CacheSource)
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
