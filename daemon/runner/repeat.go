package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/repeat"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// ErrNotRepeated is Repeat declining before it printed or recorded
// anything: the run goes the ordinary way.
var ErrNotRepeated = errors.New("the run is not repeated")

// repeatLog keeps a run's quick hits (hits whose outputs are as vx left
// them) for the memo a later identical run may repeat.
type repeatLog struct {
	mu    sync.Mutex
	tasks map[string]repeat.Task
	// unwatched are quick hits' outputs outside the journal's view.
	unwatched []hashing.Stamp
	// direct says of each directory whether it is reached from the
	// root without a symbolic link (linkFree).
	direct map[string]bool
	// linked is modelLinked's answer, asked once (startModelCheck) on
	// the first hit: its stats overlap the run's hits.
	modelOnce sync.Once
	linked    chan string
}

// startModelCheck starts modelLinked for the run's model, once.
func (l *repeatLog) startModelCheck(m *workspace.Model) {
	l.modelOnce.Do(func() {
		l.linked = make(chan string, 1)
		go func() { l.linked <- l.modelLinked(m) }()
	})
}

// note keeps one quick hit; nil keeps nothing. Its outputs the journal
// does not see written are kept by their stat: those outside its view
// and those with more than one link (linked). (An output behind a
// symbolic link is never cached, and a project reached through one
// leaves no memo: modelLinked.)
func (l *repeatLog) note(r *run, n *workspace.Node, row *wire.TaskRow, deps, files, linked []string, text string, printed bool) {
	if l == nil {
		return
	}
	l.startModelCheck(r.p.Model)
	root, dir := r.p.Model.Root, r.dir(n)
	var outside []hashing.Stamp
	for _, f := range files {
		abs := filepath.Join(dir, filepath.FromSlash(f))
		if !hashing.Covered(root, abs) || slices.Contains(linked, f) {
			outside = append(outside, hashing.StampOf(abs))
		}
	}
	t := repeat.Task{ID: n.ID, Project: n.Project, Task: n.Task, Key: row.Key, CacheSource: row.CacheSource,
		Outputs: row.Outputs, DependsOn: deps, Log: text, Printed: printed}
	l.mu.Lock()
	l.tasks[n.ID] = t
	l.unwatched = append(l.unwatched, outside...)
	l.mu.Unlock()
}

// linkFree reports whether the directory dir of root is reached from
// root without a symbolic link: the journal watches the directories it
// walks, and a write behind a link is reported for no watched path.
func (l *repeatLog) linkFree(root, dir string) bool {
	if dir == root {
		return true
	}
	if !strings.HasPrefix(dir, root+string(filepath.Separator)) {
		return false
	}
	l.mu.Lock()
	v, ok := l.direct[dir]
	l.mu.Unlock()
	if ok {
		return v
	}
	var st hashing.Stat
	v = hashing.Lstat(dir, &st) == nil && st.Dir() && l.linkFree(root, filepath.Dir(dir))
	l.setDirect(dir, v)
	return v
}

// setDirect records whether dir is reached without a link.
func (l *repeatLog) setDirect(dir string, v bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.direct == nil {
		l.direct = map[string]bool{}
	}
	l.direct[dir] = v
}

// modelLinked names a file of the workspace's configuration (or a
// project's directory, or a path the project globs reach) that is read
// through a symbolic link, "" when none is: an edit behind a link, or a
// manifest made there, is reported for no path the journal watches.
func (l *repeatLog) modelLinked(m *workspace.Model) string {
	// The glob walk proves most project directories reached without a
	// link (entries of a cleared directory): linkFree need not lstat them.
	p := m.ProjectGlobLink(func(abs string) { l.setDirect(abs, true) })
	if p != "" {
		return p
	}
	// Each project's directory is the directory of a file it was read
	// from (its package.json or vx.project.json): checked below.
	for _, f := range m.Files {
		var st hashing.Stat
		if hashing.Lstat(f, &st) != nil || !st.Regular() || !l.linkFree(m.Root, filepath.Dir(f)) {
			return f
		}
	}
	return ""
}

// saveRepeat leaves the memo of a run every task of which was a quick
// hit, with nothing to warn of and no remote cache, on the token taken
// before the run loaded anything; any other run removes the memo, so that
// none outlives the state it described.
func (r *run) saveRepeat(ctx context.Context, sum *wire.RunSummary) {
	if r.rep == nil {
		return
	}
	path := layout.Repeat(r.p.Model.Root)
	m, why := r.repeatMemo(ctx, sum)
	if m == nil {
		r.log.Debug().Str("why", why).Msg("no repeat memo")
		repeat.Remove(path)
		return
	}
	if err := repeat.Save(path, m); err != nil {
		r.log.Debug().Err(err).Msg("saving the repeat memo")
		repeat.Remove(path)
	}
}

// repeatMemo is the run's memo; nil, with why, when it may not be
// repeated.
func (r *run) repeatMemo(ctx context.Context, sum *wire.RunSummary) (*repeat.Memo, string) {
	base, l := r.o.Repeat, r.rep
	switch {
	case !sum.OK || ctx.Err() != nil || len(sum.Tasks) == 0:
		return nil, "the run did not pass"
	case len(sum.Warnings) > 0:
		return nil, "the run warned"
	case r.rc.sess != nil:
		return nil, "a remote cache is configured"
	case r.p.journal.Epoch() != base.Epoch:
		return nil, "vxd's journal restarted during the run"
	}
	l.startModelCheck(r.p.Model)
	if f := <-l.linked; f != "" {
		return nil, f + " is read through a symbolic link"
	}
	watched, ok := r.p.journal.Unwatched()
	if !ok {
		return nil, "the listing is not one the journal vouches for"
	}
	m := &repeat.Memo{Version: version.Version, Root: r.p.Model.Root, Epoch: base.Epoch, Seq: base.Seq, Salt: base.Salt, Input: base.Input,
		RunID: r.runID, Command: sum.Command, Args: maskAll(r.p.Masker, r.o.Command), CI: isCI(r.p.Env)}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, row := range sum.Tasks {
		t, ok := l.tasks[row.TaskID]
		if !ok {
			return nil, row.TaskID + " was no intact hit"
		}
		m.Tasks = append(m.Tasks, t)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, "no executable: " + err.Error()
	}
	m.Watched = append(watched, l.unwatched...)
	m.Watched = append(m.Watched, hashing.StampOf(exe), hashing.StampOf(layout.OutputStamps(m.Root)))
	return m, ""
}

// Repeat is Execute for a run that repeats the memo m (repeat.Ask found
// nothing it depends on changed): every task is m's hit again, its log
// printed and its execution recorded, without loading the workspace.
//
// It answers ErrNotRepeated, having printed and recorded nothing, when the
// history is not the one the memo's run was recorded in (removed,
// replaced, or no database): the ordinary run then records the keys'
// components (what vx why compares) or moves the history aside and says
// so.
func Repeat(ctx context.Context, root string, m *repeat.Memo, o *Options, out Output) (*wire.RunSummary, error) {
	hist, err := openRepeated(ctx, root, m, o)
	if err != nil {
		return nil, err
	}
	defer hist.Close()
	env := o.Environ
	if env == nil {
		env = os.Environ()
	}
	// The secrets to mask (in a warning) are those the workspace's files
	// declare: read only if there is something to warn of.
	r := &run{o: o, out: out, log: o.Logger, runID: history.NewRunID(), p: &Prepared{Masker: secret.NewMasker()}}
	warn := func(format string, args ...any) {
		r.p.Masker = secret.NewMasker(workspace.SecretValues(root, nil, environMap(env))...)
		r.warn(format, args...)
	}
	if err := reapDead(ctx, hist, root, r.log); err != nil {
		warn("%v", err)
	}
	started := time.Now()
	branch, commit := GitHead(root)
	hr := &history.Run{ID: r.runID, Command: m.Command, Args: m.Args, StartedAt: started, Status: "running", GitBranch: branch, GitCommit: commit, CI: m.CI}
	if err := hist.BeginRun(ctx, hr); err != nil {
		return nil, err
	}
	r.event(wire.Event{Type: wire.EventRunStarted, Command: m.Command, Tasks: len(m.Tasks)})
	sum := &wire.RunSummary{RunID: r.runID, Command: m.Command, StartedAt: started, GitBranch: branch, GitCommit: commit,
		Tasks: make([]wire.TaskRow, 0, len(m.Tasks)), Warnings: []string{}, RepeatOf: m.RunID}
	execs := r.replayMemo(m, sum)
	if err := hist.RecordExecutions(context.WithoutCancel(ctx), execs); err != nil {
		warn("recording %d task executions: %v", len(execs), err)
	}
	sum.EndedAt = time.Now()
	sum.DurationMs = sum.EndedAt.Sub(started).Milliseconds()
	sum.Status, sum.OK = "passed", true
	if err := hist.FinishRun(context.WithoutCancel(ctx), r.runID, sum.Status, sum.ExitCode, sum.EndedAt, sum.Totals.Tasks, 0, sum.Totals.Cached); err != nil {
		warn("recording the end of run %s: %v", r.runID, err)
	}
	sum.Warnings = append(sum.Warnings, r.warns...)
	r.event(wire.Event{Type: wire.EventRunFinished, Summary: sum})
	r.footer(sum)
	return sum, nil
}

// openRepeated opens the history the memo's run was recorded in; an
// ErrNotRepeated when there is none, or it does not hold that run.
func openRepeated(ctx context.Context, root string, m *repeat.Memo, o *Options) (*history.Store, error) {
	hist, err := history.OpenExisting(ctx, history.Path(root), &history.Options{Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotRepeated, err)
	}
	if _, err := hist.ResolveRun(ctx, m.RunID); err != nil {
		hist.Close()
		return nil, fmt.Errorf("%w: the history does not hold run %s (%v)", ErrNotRepeated, m.RunID, err)
	}
	return hist, nil
}

// replayMemo prints each of the memo's tasks as its hit again, with the
// feed's events, puts its row in sum and answers the executions to record.
func (r *run) replayMemo(m *repeat.Memo, sum *wire.RunSummary) []history.Execution {
	execs := make([]history.Execution, 0, len(m.Tasks))
	for i := range m.Tasks {
		t := &m.Tasks[i]
		start := time.Now()
		r.event(wire.Event{Type: wire.EventTaskStarted, TaskID: t.ID, DependsOn: t.DependsOn})
		r.printHit(t.ID, t.CacheSource, t.Log, t.Printed)
		code := 0
		row := wire.TaskRow{TaskID: t.ID, Project: t.Project, Task: t.Task, Status: wire.StatusPassed, Cache: wire.CacheHit,
			CacheSource: t.CacheSource, Key: t.Key, DurationMs: time.Since(start).Milliseconds(), ExitCode: &code, Outputs: t.Outputs}
		sum.Tasks = append(sum.Tasks, row)
		sum.Totals.Count(&row)
		execs = append(execs, execution(r.runID, t.ID, t.Project, t.Task, &row))
		r.event(wire.Event{Type: wire.EventTaskFinished, TaskID: t.ID, Status: row.Status, Cache: row.Cache, DurationMs: row.DurationMs})
	}
	return execs
}
