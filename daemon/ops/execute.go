package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/daemon/platformpush"
	"github.com/vzn/vx/daemon/remotecache"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/wire"
)

// ExecuteInput is one run of tasks: what vx run's flags (or the typed
// request of vx run --input -) select, and how to run it. Its Model and
// Plan are the Env's and the operation's to set: Plan and Execute set them.
type ExecuteInput struct {
	runner.Options
	// Output is where Execute prints task lines, warnings and events
	// (Plan prints nothing).
	Output runner.Output
}

// options is the input as the runner's options over the model m.
func (in *ExecuteInput) options(m *workspace.Model, plan bool) *runner.Options {
	o := in.Options
	o.Model, o.Plan = m, plan
	return &o
}

// prepare resolves the selection over the Env's model and computes every
// task's key (plan: for Plan, which needs nothing only a run needs). A
// selection that cannot run (an unknown task, a bad filter,
// a cycle) is a *Refusal with exit code 2: nothing ran.
func (e *Env) prepare(ctx context.Context, in *ExecuteInput, plan bool) (*runner.Prepared, *runner.Options, error) {
	m, err := e.CurrentModel()
	if err != nil {
		return nil, nil, &opkit.Refusal{Msg: e.Masker.String(err.Error())}
	}
	if in.Repeat != nil {
		if _, pushes, _ := platformpush.Resolve(m.Config.Platform, in.Environ); pushes {
			// A run the platform hears of leaves no memo: a repeat does
			// not load the configuration that says where to push.
			in.Repeat = nil
		}
	}
	opts := in.options(m, plan)
	p, err := runner.Prepare(ctx, opts)
	if err != nil {
		return nil, nil, &opkit.Refusal{Msg: e.Masker.String(err.Error())}
	}
	return p, opts, nil
}

// Plan is vx run --dry and planTasks: what the run would do, each task's
// cache verdict and the predicted times, executing nothing and recording
// nothing.
func Plan(ctx context.Context, e *Env, in ExecuteInput) (*wire.Plan, error) {
	p, _, err := e.prepare(ctx, &in, true)
	if err != nil {
		return nil, err
	}
	return runner.Plan(ctx, p, in.Force)
}

// Execute is vx run: it runs the selection in this process with the cache
// and records the run in the history. The summary is returned even when
// tasks fail (its ExitCode says so); an error is a refusal before anything
// ran (*Refusal) or a failure of vx itself, masked.
func Execute(ctx context.Context, e *Env, in ExecuteInput) (*wire.RunSummary, error) {
	p, opts, err := e.prepare(ctx, &in, false)
	if err != nil {
		return nil, err
	}
	sum, err := runner.Execute(ctx, p, opts, in.Output)
	if err != nil {
		return nil, errors.New(e.Masker.String(err.Error()))
	}
	return sum, nil
}

// RepeatParts is the run's request as daemon/journal digests it (with the
// working directory it was asked from); false for a request that never
// repeats an earlier run: a forced one, or one whose selection depends on
// git (--affected).
func (in *ExecuteInput) RepeatParts(cwd string) ([]string, bool) {
	if in.Force || in.Affected || in.AffectedRef != "" || len(in.Tasks) == 0 {
		return nil, false
	}
	// The flag's own syntax, the default spelt out: --cache local:rw,remote:rw
	// and no flag ask the same.
	cache := remotecache.DefaultMode().String()
	if in.Cache != nil {
		cache = in.Cache.String()
	}
	parts := []string{"cwd", cwd, "tasks", strings.Join(in.Tasks, "\x00"), "filters", strings.Join(in.Filters, "\x00"),
		"continue", strconv.FormatBool(in.Continue), "concurrency", strconv.Itoa(in.Concurrency), "cache", cache,
		"command", strings.Join(in.Command, "\x00")}
	return parts, true
}

// tryRepeat answers the run in, asked from cwd, from the memo of the last
// identical fully cached run when vxd's change journal (src) proves that
// nothing it depends on has changed since: every task is that run's hit
// again, printed through output's Output (output's func closes it) and
// recorded, and the workspace is not loaded. A nil summary says the run
// must be executed; the answer is then what vxd said: the Base the run
// may leave its own memo on, Silent when vxd did not answer (the run then
// does not wait for it a second time). It never starts a daemon.
func tryRepeat(ctx context.Context, root, cwd string, src journal.ChangeSource, in ExecuteInput, output func() (runner.Output, func())) (*wire.RunSummary, journal.Answer, error) {
	parts, ok := in.RepeatParts(cwd)
	if src == nil || !ok {
		return nil, journal.Answer{}, nil
	}
	ans := journal.Ask(ctx, root, src, in.Environ, parts...)
	in.Logger.Debug().Str("why", ans.Why).Bool("repeat", ans.Memo != nil).Msg("repeat")
	if ans.Memo == nil {
		return nil, ans, nil
	}
	out, closeOut := output()
	defer closeOut()
	o := &runner.Options{Selection: wire.Selection{Tasks: in.Tasks}, Command: in.Command, Environ: in.Environ, Logger: in.Logger}
	sum, err := runner.Repeat(ctx, root, ans.Memo, o, out)
	if errors.Is(err, runner.ErrNotRepeated) {
		in.Logger.Debug().Err(err).Msg("repeat")
		return nil, ans, nil
	}
	if err != nil {
		return nil, ans, err
	}
	return sum, ans, nil
}

// Ahead is what vx run does from its workspace's root alone, before the
// workspace loads: repeat an identical run from vxd's memo (Repeat), else
// start the listing, the stat cache and the history (Start), which
// Complete hands the run once the workspace has loaded.
type Ahead struct {
	root, cwd string
	src       journal.ChangeSource // vxd's change journal; nil without one
	answer    journal.Answer
	early     *runner.Early
	ctx       context.Context // Start's
}

// NewAhead is the start of a run asked from cwd in the workspace at root,
// with vxd's change journal src (nil: none).
func NewAhead(root, cwd string, src journal.ChangeSource) *Ahead {
	return &Ahead{root: root, cwd: cwd, src: src}
}

// Repeat is TryRepeat for the run in: its summary when an identical fully
// cached run was repeated (printed through output), nil when the run must
// execute.
func (a *Ahead) Repeat(ctx context.Context, in ExecuteInput, output func() (runner.Output, func())) (*wire.RunSummary, error) {
	sum, ans, err := tryRepeat(ctx, a.root, a.cwd, a.src, in, output)
	a.answer = ans
	return sum, err
}

// Start begins what needs only the root while the workspace loads (the
// output stamps too when the run executes).
func (a *Ahead) Start(ctx context.Context, log zerolog.Logger, execute bool) {
	a.early = runner.StartEarly(ctx, a.root, log, execute)
	a.ctx = ctx
	if !a.answer.Silent {
		// Opened now, vxd's journal serves the plugins' matched files
		// while the workspace loads, then the run.
		a.early.OpenJournal(ctx, a.answer.Source(a.src))
	}
}

// Complete puts in what was done ahead: the early start, vxd's journal
// with the answer Repeat's question already had (the run asks vxd once;
// when vxd did not answer within its second the run stats every file
// rather than wait again), and the base the run's own memo is left on. A
// nil Ahead (no workspace root) changes nothing.
func (a *Ahead) Complete(in *ExecuteInput) {
	if a == nil {
		return
	}
	in.Early = a.early
	if !a.answer.Silent {
		in.Changes = a.answer.Source(a.src)
	}
	in.Repeat = a.answer.Base
}

// Listing is the file listing Start began and its stats, for the load's
// plugins (none when none was begun).
func (a *Ahead) Listing() workspace.Listed {
	if a == nil || a.early == nil {
		return workspace.Listed{}
	}
	jfiles, jhash := a.early.JournalListing(a.ctx)
	return workspace.Listed{
		Files: func() ([]string, bool) {
			if files, ok, _ := a.early.Listing(); ok {
				return files, ok
			}
			if jfiles != nil {
				return jfiles()
			}
			return nil, false
		},
		Stat: a.early.StatListed(),
		Hash: jhash,
	}
}

// Close releases what Start started (nil: nothing).
func (a *Ahead) Close() {
	if a != nil && a.early != nil {
		a.early.Close()
	}
}

// PushRun sends the run sum to the platform the workspace pushes to (if
// any), then what the outbox holds, within platformpush.Budget; it never
// fails: what cannot be delivered stays in the outbox and one line says
// so on warn.
func (e *Env) PushRun(ctx context.Context, sum *wire.RunSummary, warn io.Writer) {
	m, err := e.CurrentModel()
	if err != nil {
		return
	}
	t, ok, err := platformpush.ForModel(m, e.environList())
	if !ok {
		return
	}
	if err != nil {
		fmt.Fprintf(warn, "vx: platform: %s\n", e.Masker.String(err.Error()))
		return
	}
	platformpush.AfterRun(ctx, e.Root, t, sum, e.Masker.String, warn)
}
