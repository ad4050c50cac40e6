package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/failures"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// Output receives what a run prints for people. Lines carry the task's
// prefix; Warn lines go to the same place.
type Output struct {
	W        io.Writer // task lines and the footer; nil discards
	Warnings io.Writer // warnings; nil = W
	Events   func(wire.Event)
	// Progress, when set, receives the run's Forecast as it starts
	// (after its run-started event), for a live view.
	Progress func(*Forecast)
}

type run struct {
	p       *Prepared
	o       *Options
	out     Output
	outMu   sync.Mutex
	store   *cache.Store
	hist    *history.Store
	log     zerolog.Logger
	runID   string
	rows    map[string]*wire.TaskRow
	rowsMu  sync.Mutex
	pending []history.Execution
	pendMu  sync.Mutex
	// full is signalled when flushRows executions are pending, so that a
	// run of many quick tasks writes them while the rest resolve.
	full    chan struct{}
	warnMu  sync.Mutex
	warns   []string
	stamps  *outputStamps
	stopped bool // a failure stopped scheduling (no --continue)
	stopBy  string
	rc      remote

	// overlaps are the run's tasks whose outputs may collide; guard keeps
	// them apart (overlap.go).
	overlaps []workspace.OutputOverlap
	guard    *outputGuard
	// notices is what earlier runs said once (notices.go).
	notices *notices

	sb sandboxState
	ps procState

	// rep keeps each quick hit of a run that may leave a memo for a
	// later run to repeat (repeat.go); nil otherwise.
	rep *repeatLog
}

func (r *run) warn(format string, args ...any) {
	msg := r.p.Masker.String(fmt.Sprintf(format, args...))
	r.warnMu.Lock()
	r.warns = append(r.warns, msg)
	r.warnMu.Unlock()
	w := r.out.Warnings
	if w == nil {
		w = r.out.W
	}
	if w != nil {
		r.outMu.Lock()
		fmt.Fprintf(w, "vx: warning: %s\n", msg)
		r.outMu.Unlock()
	}
}

func (r *run) printf(format string, args ...any) {
	if r.out.W == nil {
		return
	}
	r.outMu.Lock()
	fmt.Fprintf(r.out.W, format, args...)
	r.outMu.Unlock()
}

func (r *run) event(e wire.Event) {
	if r.out.Events != nil {
		e.RunID = r.runID
		if e.Time.IsZero() {
			e.Time = time.Now()
		}
		r.out.Events(e)
	}
}

// Execute runs a prepared graph and returns its summary. The summary is
// returned even when tasks fail; err is for failures of vx itself.
func Execute(ctx context.Context, p *Prepared, o *Options, out Output) (*wire.RunSummary, error) {
	if err := sandboxRequired(p); err != nil {
		return nil, err
	}
	store, hist, err := openStores(ctx, p, o)
	if err != nil {
		return nil, err
	}
	defer hist.Close()
	root := p.Model.Root
	r := &run{p: p, o: o, out: out, store: store, hist: hist, log: o.Logger, rows: map[string]*wire.TaskRow{}, full: make(chan struct{}, 1), stamps: p.early.takeStamps(root)}
	if r.stamps == nil {
		r.stamps = loadStamps(root)
	}
	r.stamps.useJournal(p.journal, root)
	r.tidy(ctx)
	if o.Repeat != nil {
		// Sized for every node: grown hit by hit it grew about ten times
		// at 10,000 tasks.
		r.rep = &repeatLog{tasks: make(map[string]journal.Task, len(p.Graph.Nodes)), links: journal.Links{Proven: o.Repeat.LinkFree}}
	}
	r.runID = history.NewRunID()
	r.startRemote(ctx)
	started := time.Now()
	branch, commit := GitHead(root)
	command := p.Masker.String(strings.Join(append([]string{"vx"}, o.Command...), " "))
	hr := &history.Run{ID: r.runID, Command: command, Args: maskAll(p.Masker, o.Command), StartedAt: started, Status: "running", GitBranch: branch, GitCommit: commit, CI: isCI(p.Env)}
	if err := hist.BeginRun(ctx, hr); err != nil {
		return nil, fmt.Errorf("recording run: %w", err)
	}
	r.event(wire.Event{Type: wire.EventRunStarted, Command: command, Tasks: len(p.Graph.Executable())})
	if out.Progress != nil {
		out.Progress(&Forecast{g: p.Graph, workers: p.Workers, hist: hist})
	}

	compsDone := r.writeComponents(ctx)
	stopFlush := r.flushEvery(ctx, 150*time.Millisecond)
	r.schedule(ctx)
	r.stopProcs()
	r.removeTmp()
	if err := r.stamps.save(); err != nil {
		r.warn("saving output stamps: %v", err)
	}
	r.log.Debug().Int64("proven", r.stamps.proven.Load()).Int64("statted", r.stamps.statted.Load()).Msg("hits' outputs")
	if err := <-compsDone; err != nil {
		r.warn("recording key components: %v", err)
	}
	remoteRun := r.finishRemote()
	stopFlush()
	r.flush(context.WithoutCancel(ctx))

	if err := r.notices.save(); err != nil {
		r.warn("saving %s: %v", layout.Notices(root), err)
	}
	sum := r.summary(started, command, branch, commit, ctx.Err() != nil)
	r.recordRemote(ctx, sum, remoteRun)
	if err := hist.FinishRun(context.WithoutCancel(ctx), r.runID, sum.Status, sum.ExitCode, sum.EndedAt, sum.Totals.Tasks, sum.Totals.Failed+sum.Totals.TimedOut, sum.Totals.Cached); err != nil {
		r.warn("recording the end of run %s: %v", r.runID, err)
	}
	sum.Warnings = append([]string{}, r.warns...)
	r.event(wire.Event{Type: wire.EventRunFinished, Summary: sum})
	r.footer(sum)
	r.saveRepeat(ctx, sum)
	return sum, nil
}

// openStores opens the run's cache and history (the history the early
// start opened, when it did), creating .vx/ first.
func openStores(ctx context.Context, p *Prepared, o *Options) (*cache.Store, *history.Store, error) {
	root := p.Model.Root
	vx := VXDir(root)
	if err := os.MkdirAll(vx, 0o755); err != nil {
		return nil, nil, fmt.Errorf("creating %s: %w", vx, err)
	}
	store, err := cache.Open(layout.Cache(root), &cache.Options{Logger: o.Logger})
	if err != nil {
		return nil, nil, fmt.Errorf("opening cache: %w", err)
	}
	hist, early, err := p.early.takeHistory(root)
	if !early {
		hist, err = history.Open(ctx, history.Path(root), &history.Options{Logger: o.Logger})
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening history: %w", err)
	}
	return store, hist, nil
}

// tidy is what a run does before its first task: it says what the history
// set aside, warns of overlapping outputs and of the preparation's
// warnings (each once), records dead runs as interrupted and removes what
// killed runs left in .vx/.
func (r *run) tidy(ctx context.Context) {
	p := r.p
	if m := r.hist.MovedAside(); m != nil {
		r.warn("%s", m)
	}
	var model []workspace.OutputOverlap
	if p.overlaps != nil {
		r.overlaps, model = p.overlaps()
	} else {
		r.overlaps, model = p.Graph.OutputOverlaps(), p.Model.RunOverlaps(p.Graph)
	}
	r.guard = newOutputGuard(r.overlaps, model)
	r.notices = loadNotices(p.Model.Root)
	r.warnOverlaps(r.overlaps)
	r.checkGitIgnore(r.notices, p.Model.Root)
	if err := reapDead(ctx, r.hist, p.Model.Root, r.log); err != nil {
		r.warn("%v", err)
	}
	r.warnPrepared(p)
}

// warnPrepared says each of the preparation's warnings (a globalInputs
// glob that matches no file) once, until the globalInputs change: a
// warm run that changes nothing says nothing. Every run's summary lists
// them all.
func (r *run) warnPrepared(p *Prepared) {
	r.warns = append(r.warns, p.Warnings...)
	globs := strings.Join(p.Model.Config.GlobalInputs, "\x00")
	for _, w := range p.Warnings {
		key := noticeKey("prepare", w, globs)
		if r.notices.said(key) {
			continue
		}
		r.warn("%s", w)
		r.warns = r.warns[:len(r.warns)-1]
		r.notices.remember(key)
	}
}

// writeComponents records the components of every key, so why can diff
// any two executions: written while the first tasks resolve (a fully
// cached run's hits need nothing of them), awaited before the run's last
// write through the returned channel.
func (r *run) writeComponents(ctx context.Context) <-chan error {
	done := make(chan error, 1)
	// Taken: once written, the encodings (10 MB at 10,000 tasks) are
	// not kept for the rest of the run.
	encoded := r.p.encoded
	r.p.encoded = nil
	go func() {
		blobs := make(map[string][]byte, len(encoded))
		for id, b := range encoded {
			blobs[r.p.Keys[id]] = b
		}
		done <- r.hist.PutComponentsBatch(ctx, blobs)
	}()
	return done
}

// flushRows is how many finished executions make a flush due before its
// period: a fully cached run of 1,000 tasks then writes its history in
// five transactions alongside its hits instead of one after them all
// (the write is SQLite on one core, the hits are on every worker).
const flushRows = 200

// flushEvery writes the finished executions to the history every period,
// and whenever flushRows are pending, until the returned function is
// called (it waits for the last flush).
func (r *run) flushEvery(ctx context.Context, period time.Duration) (stop func()) {
	flushDone := make(chan struct{})
	stopFlush := make(chan struct{})
	go func() {
		defer close(flushDone)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				r.flush(context.WithoutCancel(ctx))
			case <-r.full:
				r.flush(context.WithoutCancel(ctx))
			case <-stopFlush:
				return
			}
		}
	}()
	return func() {
		close(stopFlush)
		<-flushDone
	}
}

func maskAll(m interface{ String(string) string }, in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = m.String(s)
	}
	return out
}

func isCI(env map[string]string) bool {
	v := strings.ToLower(env["CI"])
	return v != "" && v != "0" && v != "false"
}

// schedule runs the graph on a worker pool: a node starts when all its
// dependencies finished; a failed dependency blocks it.
func (r *run) schedule(ctx context.Context) {
	s := newScheduler(ctx, r)
	var wg sync.WaitGroup
	s.startWorkers(&wg)
	for s.done < len(s.nodes) {
		// Learn of every finished task first (a failure stops what has
		// not started), then queue ready nodes, then feed idle workers.
		s.drainFinished()
		s.holdBack()
		for len(s.ready) > 0 {
			s.resolve(<-s.ready)
		}
		if s.done == len(s.nodes) {
			break
		}
		s.step()
	}
	close(s.work)
	wg.Wait()
}

// outcome is how one node of the graph ended.
type outcome struct {
	n       *workspace.Node
	ok      bool
	skipped bool     // not started (interrupted, or stopped after a failure)
	roots   []string // failed tasks at the origin of a block
	quick   bool     // a hit answered in the scheduler, by no worker
}

// scheduler is one run's walk of its task graph. Only the goroutine in
// schedule touches its fields; the workers use just the two channels.
type scheduler struct {
	ctx        context.Context
	r          *run
	nodes      []*workspace.Node
	remaining  []int               // per node: dependencies not yet finished
	dependents [][]*workspace.Node // per node: the nodes depending on it
	status     []outcome
	ready      chan *workspace.Node // every dependency finished: to resolve
	finished   chan outcome
	work       chan *workspace.Node // to the workers
	workers    int
	queue      []*workspace.Node // resolved to run, waiting for a worker
	done       int
	running    int
	// Memory: a task reserves the largest peak RSS history saw for it; a
	// task that would overflow the budget waits unless nothing else runs.
	memInUse int64
}

// newScheduler counts each node's dependencies and readies those with none.
func newScheduler(ctx context.Context, r *run) *scheduler {
	nodes := r.p.Graph.Nodes
	workers := max(1, r.p.Workers)
	// work holds up to a node per worker: step hands out every node that
	// may start at once, never more than workers (running counts them).
	s := &scheduler{ctx: ctx, r: r, nodes: nodes,
		remaining: make([]int, len(nodes)), dependents: make([][]*workspace.Node, len(nodes)), status: make([]outcome, len(nodes)),
		ready: make(chan *workspace.Node, len(nodes)), finished: make(chan outcome, len(nodes)), work: make(chan *workspace.Node, workers),
		workers: workers}
	for _, n := range nodes {
		s.remaining[n.Index] = len(n.Deps)
		for _, d := range n.Deps {
			s.dependents[d.Index] = append(s.dependents[d.Index], n)
		}
	}
	for _, n := range nodes {
		if s.remaining[n.Index] == 0 {
			s.ready <- n
		}
	}
	return s
}

// startWorkers starts the pool: each worker runs the nodes it is handed.
func (s *scheduler) startWorkers(wg *sync.WaitGroup) {
	for i := 0; i < s.workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range s.work {
				ok := s.r.runNode(s.ctx, n)
				s.finished <- outcome{n: n, ok: ok}
			}
		}()
	}
}

func (s *scheduler) skip(n *workspace.Node, reason string) {
	s.r.record(n, skippedRow(n, reason), nil)
	s.finished <- outcome{n: n, skipped: true}
}

// resolve decides whether a ready node runs, is blocked or is skipped.
func (s *scheduler) resolve(n *workspace.Node) {
	var roots []string
	depSkipped := false
	for _, d := range n.Deps {
		st := s.status[d.Index]
		switch {
		case st.skipped:
			depSkipped = true
		case !st.ok && len(st.roots) > 0:
			roots = append(roots, st.roots...)
		case !st.ok:
			roots = append(roots, d.ID)
		}
	}
	switch {
	case s.ctx.Err() != nil:
		s.skip(n, "not started: the run was interrupted")
	case len(roots) > 0:
		roots = uniqSorted(roots)
		s.r.record(n, blockedRow(n, roots), nil)
		s.finished <- outcome{n: n, roots: roots}
	case s.r.stopped:
		s.skip(n, fmt.Sprintf("not started: %s failed and --continue was not given", s.r.stopBy))
	case depSkipped:
		s.skip(n, "not started: a task it depends on did not run")
	case n.Def.NoOp():
		s.finished <- outcome{n: n, ok: true}
	case s.r.quickHit(n, newRow(n, s.r.p.Keys[n.ID])):
		// Outputs as vx left them: answered here, without the two
		// hand-offs to and from a worker (most of a hit's cost).
		s.finished <- outcome{n: n, ok: true, quick: true}
	default:
		s.queue = append(s.queue, n)
	}
}

// onFinished records a node's end, frees what it reserved, stops the run
// on a failure without --continue, and readies the dependents it was the
// last dependency of.
func (s *scheduler) onFinished(o outcome) {
	s.done++
	if !o.skipped && o.roots == nil && !o.quick && !o.n.Def.NoOp() {
		s.running--
		s.memInUse -= s.r.p.PeakRSS[o.n.ID]
		s.r.guard.done(o.n.ID)
	}
	s.status[o.n.Index] = o
	if !o.ok && !o.skipped && o.roots == nil && !s.r.o.Continue && !s.r.stopped && s.ctx.Err() == nil {
		s.r.stopped, s.r.stopBy = true, o.n.ID
	}
	for _, dn := range s.dependents[o.n.Index] {
		s.remaining[dn.Index]--
		if s.remaining[dn.Index] == 0 {
			s.ready <- dn
		}
	}
}

// drainFinished learns of every task that finished, without waiting.
func (s *scheduler) drainFinished() {
	for {
		select {
		case o := <-s.finished:
			s.onFinished(o)
		default:
			return
		}
	}
}

// holdBack returns the queue to resolve once the run stopped or was
// interrupted: what was queued before never starts.
func (s *scheduler) holdBack() {
	if !(s.r.stopped || s.ctx.Err() != nil) || len(s.queue) == 0 {
		return
	}
	held := s.queue
	s.queue = nil
	for _, n := range held {
		s.ready <- n
	}
}

// pick is the first queued node that may start now: no task writing the
// same outputs runs, and its memory fits the budget (or nothing runs).
// -1 when none may.
func (s *scheduler) pick() int {
	for i, n := range s.queue {
		if s.r.guard.blocked(n.ID) || s.yields(n) {
			continue // a task writing the same outputs is running, or should first
		}
		need := s.r.p.PeakRSS[n.ID]
		if s.running == 0 || s.r.p.MemoryBudget <= 0 || s.memInUse+need <= s.r.p.MemoryBudget {
			return i
		}
	}
	return -1
}

// step hands each idle worker a node that may start, all of them at once
// (two tasks ready together both start, however soon one of them fails),
// or, when it hands none, waits for a task to finish.
func (s *scheduler) step() {
	handed := false
	for s.running < s.workers && len(s.queue) > 0 {
		at := s.pick()
		if at < 0 {
			break
		}
		next := s.queue[at]
		s.queue = append(s.queue[:at], s.queue[at+1:]...)
		s.running++
		s.memInUse += s.r.p.PeakRSS[next.ID]
		s.r.guard.start(next.ID)
		s.work <- next // never blocks: at most workers are out
		handed = true
	}
	if !handed {
		s.onFinished(<-s.finished)
	}
}

func uniqSorted(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

func blockedRow(n *workspace.Node, roots []string) *wire.TaskRow {
	return &wire.TaskRow{TaskID: n.ID, Project: n.Project, Task: n.Task, Status: wire.StatusBlocked, Cache: wire.CacheMiss,
		BlockedBy: roots, Reason: "blocked by " + strings.Join(roots, ", ")}
}

func skippedRow(n *workspace.Node, reason string) *wire.TaskRow {
	return &wire.TaskRow{TaskID: n.ID, Project: n.Project, Task: n.Task, Status: wire.StatusSkipped, Cache: wire.CacheMiss, Reason: reason}
}

// newRow is a task's row before it runs.
func newRow(n *workspace.Node, key string) *wire.TaskRow {
	row := &wire.TaskRow{TaskID: n.ID, Project: n.Project, Task: n.Task, Key: key, Cache: wire.CacheMiss}
	if !n.Def.Cache {
		row.Cache = wire.CacheOff
	}
	return row
}

// runNode executes one task (or restores it) and records it; the
// scheduler answers the hits quickHit can without a worker.
func (r *run) runNode(ctx context.Context, n *workspace.Node) bool {
	row := newRow(n, r.p.Keys[n.ID])
	release, reason := r.lockNode(ctx, n)
	if release == nil {
		row.Status, row.Reason = wire.StatusInterrupted, reason
		r.record(n, row, nil)
		return false
	}
	defer release()
	r.event(wire.Event{Type: wire.EventTaskStarted, TaskID: n.ID, DependsOn: executableDeps(n)})
	start := time.Now()

	if n.Def.Cache && !r.o.Force {
		if ok := r.restore(ctx, n, row, start); ok {
			return true
		}
	}

	prefix := n.ID + ": "
	res, log := r.runCommand(ctx, n, prefix)
	log = r.verdict(n, res, row, log)
	if row.Status == wire.StatusPassed && n.Def.Cache {
		r.cacheOutputs(ctx, n, row, log)
	} else {
		r.stamps.forget(n.ID)
	}
	var kept []byte
	if row.Status != wire.StatusPassed {
		kept = log
		r.printf("%s%s: %s\n", prefix, row.Status, row.Reason)
	}
	r.record(n, row, kept)
	return row.Status == wire.StatusPassed
}

// lockNode takes the task's lock (one per task id, whatever its key: two
// runs of a task with different inputs still share its directory and
// outputs) and, when another task writes the same files, that overlap's
// lock. release is nil when the wait was interrupted, with the reason.
func (r *run) lockNode(ctx context.Context, n *workspace.Node) (release func(), reason string) {
	lock, err := lockTask(ctx, layout.Locks(r.p.Model.Root), safeName(n.ID))
	if err != nil {
		return nil, "interrupted while waiting for another vx run of this task"
	}
	name := r.guard.lockName(n.ID)
	if name == "" {
		return lock.release, ""
	}
	// Another vx run may be running a task that writes the same files.
	olock, err := lockTask(ctx, filepath.Join(VXDir(r.p.Model.Root), "locks"), safeName(name))
	if err != nil {
		lock.release()
		return nil, "interrupted while waiting for another vx run of a task writing the same outputs"
	}
	return func() { olock.release(); lock.release() }, ""
}

// runCommand executes the task's command, its lines printed with prefix
// as they come, and returns the result and the masked log.
func (r *run) runCommand(ctx context.Context, n *workspace.Node, prefix string) (result, []byte) {
	capt := &capture{masker: r.p.Masker}
	if r.out.W != nil {
		capt.mask, capt.hold = r.p.Masker.String, r.p.Masker.MultiLineHold()
		capt.emit = func(line []byte) {
			r.printf("%s%s\n", prefix, r.p.Masker.String(string(line)))
		}
	}
	res := r.execute(ctx, n, capt)
	return res, r.p.Masker.Bytes(capt.bytes())
}

// verdict fills the row from the command's result: its measures, status
// and reason (masked). It returns the log, with the reason the command
// could not start added to it.
func (r *run) verdict(n *workspace.Node, res result, row *wire.TaskRow, log []byte) []byte {
	row.DurationMs = res.duration.Milliseconds()
	row.PeakRSSBytes = res.peakRSS
	row.CPUParallelism = round2(res.cpuParallelism)
	row.SandboxViolations = res.violations
	code := res.exitCode
	row.ExitCode = &code
	switch {
	case res.startErr != nil:
		row.Status, row.Reason = wire.StatusFailed, r.p.Masker.String("could not start: "+res.startErr.Error())
		log = append(log, []byte(row.Reason+"\n")...)
	case res.timedOut:
		row.Status, row.TimedOut = wire.StatusTimedOut, true
		row.Reason = fmt.Sprintf("timed out after %s (the task's timeout); its process group was killed", n.Def.Timeout)
	case res.interrupted:
		row.Status, row.Reason = wire.StatusInterrupted, "interrupted: the run was stopped"
	case code != 0:
		row.Status, row.Reason = wire.StatusFailed, fmt.Sprintf("exited with code %d", code)
	default:
		row.Status = wire.StatusPassed
	}
	return log
}

// cacheOutputs stores a passed task's outputs and log under its key (and
// sends them to the remote cache); a task that could not be stored says
// why in its row.
func (r *run) cacheOutputs(ctx context.Context, n *workspace.Node, row *wire.TaskRow, log []byte) {
	files := r.outputs(n)
	row.Outputs = len(files)
	key := row.Key
	meta := cache.Meta{Key: key, TaskID: n.ID, Project: n.Project, Task: n.Task, Command: r.p.Masker.String(n.Def.Command), ExitCode: 0, DurationMs: row.DurationMs, Created: time.Now()}
	st := r.writeStore()
	if st == nil {
		r.stamps.forget(n.ID)
		return
	}
	e, err := st.Put(context.WithoutCancel(ctx), meta, r.dir(n), files, log)
	if err != nil {
		r.warn("%s: not cached: %v", n.ID, err)
		// The task passed, but the next run with this key cannot hit:
		// its row (footer, summary, history) says why.
		row.Reason = r.p.Masker.String(fmt.Sprintf("passed, not cached: %v", err))
		r.stamps.forget(n.ID)
		return
	}
	r.stamp(n.ID, key, r.dir(n), files, log)
	r.uploadRemote(n.ID, key, e)
}

// restore answers a task from the cache; false on a miss.
func (r *run) restore(ctx context.Context, n *workspace.Node, row *wire.TaskRow, start time.Time) bool {
	dir := r.dir(n)
	// Outputs still exactly as vx left them for this key, with the log
	// remembered: nothing to read from the cache or write to disk.
	var files []string
	var log []byte
	same := false
	if r.rc.mode.LocalRead {
		files, _, log, same = r.stamps.current(n.ID, row.Key, dir)
	}
	source := wire.CacheSourceLocal
	if !same || log == nil {
		var hit *cache.Hit
		err := cache.ErrMiss
		if r.rc.mode.LocalRead && !r.rc.prefetched[row.Key] {
			hit, err = r.store.Get(row.Key)
		}
		if err != nil {
			if !errors.Is(err, cache.ErrMiss) {
				r.warn("%s: cache entry %s is unreadable and will be replaced: %v", n.ID, row.Key, err)
			}
			if hit = r.fetchRemote(ctx, n.ID, row.Key); hit == nil {
				return false
			}
			source, same = wire.CacheSourceRemote, false
		}
		if !same {
			if files, err = hit.RestoreWithin(dir, outputsAllow(n.Def.Outputs)); err != nil {
				r.stamps.forget(n.ID)
				r.warn("%s: cache entry %s could not be restored and will be replaced: %v", n.ID, row.Key, err)
				return false
			}
		}
		if log, err = hit.Log(); err != nil {
			log = nil
		}
		r.stamp(n.ID, row.Key, dir, files, log)
	}
	r.hit(n, row, start, source, files, log)
	return true
}

// quickHit answers a task whose outputs are still exactly as vx left them
// for its key, its log remembered, without taking the task's lock: such a
// hit reads nothing from the cache and writes nothing, so there is nothing
// to keep apart from another run. A run writing those outputs changes
// their stamps, and a task whose outputs do not match (or that shares
// outputs with another task) takes the lock and restore's full path. On a
// fully cached run of 1,000 tasks this is 3,000 system calls fewer (the
// lock file's open, flock and close).
func (r *run) quickHit(n *workspace.Node, row *wire.TaskRow) bool {
	// blocked: a task of this run writing the same outputs is running (the
	// run's own pairs are in no lock group when the whole workspace's
	// graph cannot be built); the scheduler starts nothing while this runs.
	if !n.Def.Cache || r.o.Force || !r.rc.mode.LocalRead || r.guard.lockName(n.ID) != "" || r.guard.blocked(n.ID) {
		return false
	}
	start := time.Now()
	files, linked, log, same := r.stamps.current(n.ID, row.Key, r.dir(n))
	if !same || log == nil {
		return false
	}
	deps := executableDeps(n)
	r.event(wire.Event{Type: wire.EventTaskStarted, TaskID: n.ID, DependsOn: deps})
	text := r.hit(n, row, start, wire.CacheSourceLocal, files, log)
	r.rep.note(r, n, row, deps, files, linked, text, len(log) > 0)
	return true
}

// hit prints a hit's line and log and records it; it answers the log as
// printed (masked, without the prefix).
func (r *run) hit(n *workspace.Node, row *wire.TaskRow, start time.Time, source string, files []string, log []byte) string {
	text := r.replay(n, source, log)
	code := 0
	row.Status, row.Cache, row.ExitCode = wire.StatusPassed, wire.CacheHit, &code
	row.CacheSource = source
	row.DurationMs = time.Since(start).Milliseconds()
	row.Outputs = len(files)
	r.record(n, row, nil)
	return text
}

// replay prints a hit's line and its cached log with the task's prefix,
// masked, and answers the masked text.
func (r *run) replay(n *workspace.Node, source string, log []byte) string {
	if len(log) == 0 {
		r.printHit(n.ID, source, "", false)
		return ""
	}
	if r.out.W == nil && r.rep == nil {
		return ""
	}
	text := strings.TrimSuffix(r.p.Masker.String(string(log)), "\n")
	r.printHit(n.ID, source, text, true)
	return text
}

// printHit prints the line that marks a task as a cache hit (from source,
// local or remote) and, when logged, its masked log after it, each line
// with the task's prefix, in one write so no other task's line comes
// between.
func (r *run) printHit(id, source, text string, logged bool) {
	if r.out.W == nil {
		return
	}
	prefix := id + ": "
	var b strings.Builder
	b.WriteString(prefix + "cache hit (" + source + ")")
	if logged {
		b.WriteString(", replaying its log\n")
		writeLog(&b, prefix, text)
	} else {
		b.WriteByte('\n')
	}
	r.printf("%s", b.String())
}

// writeLog writes text to b, each line with prefix.
func writeLog(b *strings.Builder, prefix, text string) {
	for _, l := range strings.Split(text, "\n") {
		b.WriteString(prefix)
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// outputs lists the files the task's outputs globs match now, relative to
// its directory. Outputs that match no file at all are one warning (a hit
// would restore nothing); one glob of several matching nothing is not (a
// workspace-wide list such as "dist/**", ".next/**" names what some
// packages write and others do not).
func (r *run) outputs(n *workspace.Node) []string {
	if len(n.Def.Outputs) == 0 {
		return nil
	}
	dir := r.dir(n)
	fsys := os.DirFS(dir)
	set := map[string]bool{}
	var globs []string // the positive globs, said when none matched
	matched := 0
	for _, g := range n.Def.Outputs {
		neg := strings.HasPrefix(g, "!")
		pat := strings.TrimPrefix(strings.TrimPrefix(g, "!"), "./")
		matches, err := doublestar.Glob(fsys, pat, doublestar.WithNoFollow())
		if err != nil {
			r.warn("%s: outputs %q is not a valid glob: %v", n.ID, g, err)
			continue
		}
		count := 0
		for _, m := range matches {
			st, err := os.Lstat(filepath.Join(dir, m))
			if err != nil {
				continue
			}
			if reservedOutput(m) {
				continue
			}
			if st.IsDir() {
				_ = filepath.WalkDir(filepath.Join(dir, m), func(p string, d fs.DirEntry, err error) error {
					if err == nil && d.IsDir() && reservedOutput(relSlash(dir, p)) {
						return filepath.SkipDir
					}
					if err == nil && !d.IsDir() {
						rel := relSlash(dir, p)
						if neg {
							delete(set, rel)
						} else {
							set[rel] = true
						}
						count++
					}
					return nil
				})
				continue
			}
			if neg {
				delete(set, m)
			} else {
				set[m] = true
			}
			count++
		}
		if !neg {
			globs = append(globs, strconv.Quote(g))
			matched += count
		}
	}
	if matched == 0 && len(globs) > 0 {
		r.warn("%s: outputs %s matched no file", n.ID, strings.Join(globs, ", "))
	}
	return slices.Sorted(maps.Keys(set))
}

func safeName(id string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			return c
		}
		return '_'
	}, id)
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// record keeps a task's row for the summary and queues its execution for
// the history.
func (r *run) record(n *workspace.Node, row *wire.TaskRow, output []byte) {
	if row.Key == "" {
		row.Key = r.p.Keys[n.ID]
	}
	r.rowsMu.Lock()
	r.rows[n.ID] = row
	r.rowsMu.Unlock()
	ex := execution(r.runID, n.ID, n.Project, n.Task, row)
	if output != nil {
		text, truncated := failures.Excerpt(output)
		ex.Output, ex.OutputTruncated = []byte(text), truncated
	}
	r.pendMu.Lock()
	r.pending = append(r.pending, ex)
	full := len(r.pending) >= flushRows
	r.pendMu.Unlock()
	if full {
		select {
		case r.full <- struct{}{}:
		default: // a flush is already due
		}
	}
	r.event(wire.Event{Type: wire.EventTaskFinished, TaskID: n.ID, Status: row.Status, Cache: row.Cache, DurationMs: row.DurationMs})
}

// execution is a task's row as the history records it, the task ending
// now.
func execution(runID, taskID, project, task string, row *wire.TaskRow) history.Execution {
	return history.Execution{RunID: runID, TaskID: taskID, Project: project, Task: task, Key: row.Key, Status: row.Status, Cache: row.Cache, CacheSource: row.CacheSource,
		ExitCode: row.ExitCode, StartedAt: time.Now().Add(-time.Duration(row.DurationMs) * time.Millisecond), DurationMs: row.DurationMs,
		PeakRSSBytes: row.PeakRSSBytes, CPUParallelism: row.CPUParallelism, BlockedBy: row.BlockedBy, TimedOut: row.TimedOut, Reason: row.Reason,
		SandboxViolations: row.SandboxViolations}
}

func (r *run) flush(ctx context.Context) {
	r.pendMu.Lock()
	batch := r.pending
	r.pending = nil
	r.pendMu.Unlock()
	if len(batch) == 0 {
		return
	}
	if err := r.hist.RecordExecutions(ctx, batch); err != nil {
		r.warn("recording %d task executions: %v", len(batch), err)
	}
}

func (r *run) summary(started time.Time, command, branch, commit string, interrupted bool) *wire.RunSummary {
	ended := time.Now()
	s := &wire.RunSummary{RunID: r.runID, Command: command, StartedAt: started, EndedAt: ended,
		DurationMs: ended.Sub(started).Milliseconds(), GitBranch: branch, GitCommit: commit, Tasks: []wire.TaskRow{}}
	for _, n := range r.p.Graph.Nodes {
		row, ok := r.rows[n.ID]
		if !ok || n.Def.NoOp() {
			continue
		}
		s.Tasks = append(s.Tasks, *row)
		s.Totals.Count(row)
	}
	switch {
	case interrupted:
		s.Status, s.ExitCode = "interrupted", 130
	case s.Totals.Failed+s.Totals.TimedOut+s.Totals.Blocked+s.Totals.Interrupted+s.Totals.Skipped > 0:
		s.Status, s.ExitCode = "failed", 1
	default:
		s.Status, s.OK = "passed", true
	}
	return s
}

func (r *run) footer(s *wire.RunSummary) {
	if r.out.W == nil {
		return
	}
	t := s.Totals
	var parts []string
	parts = append(parts, fmt.Sprintf("%d passed", t.Passed))
	parts = append(parts, fmt.Sprintf("%d cached", t.Cached))
	if s.Remote != nil {
		parts[len(parts)-1] += fmt.Sprintf(" (%d remote)", t.RemoteHits)
	}
	for _, x := range []struct {
		n    int
		name string
	}{{t.Failed, "failed"}, {t.TimedOut, "timed out"}, {t.Blocked, "blocked"}, {t.Skipped, "skipped"}, {t.Interrupted, "interrupted"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.name))
		}
	}
	r.printf("\n Tasks:  %s (%d total)\n", strings.Join(parts, ", "), t.Tasks)
	for _, row := range s.Tasks {
		if row.Status != wire.StatusPassed || row.Reason != "" {
			r.printf(" %-7s %s: %s%s\n", row.Status, row.TaskID, row.Reason, r.inferredFrom(row))
		}
	}
	r.sandboxFooter(s)
	if s.RepeatOf != "" {
		r.printf(" Repeat: run %s (vxd: nothing it depends on changed since)\n", s.RepeatOf)
	}
	r.printf(" Time:   %s\n Run:    %s\n", fmtDuration(time.Duration(s.DurationMs)*time.Millisecond), s.RunID)
}

// inferredFrom names, for a task that failed or timed out and that a
// plugin inferred, the plugin and the file it came from and how to see
// its definition ("" otherwise): the task is in no file the user wrote.
func (r *run) inferredFrom(row wire.TaskRow) string {
	if row.Status != wire.StatusFailed && row.Status != wire.StatusTimedOut || r.p.Model == nil {
		return ""
	}
	project, task, ok := workspace.SplitTaskID(row.TaskID)
	if !ok {
		return ""
	}
	o, ok := r.p.Model.Inferred(project, task)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (inferred by plugin %s from %s: vx show %s)", o.Plugin, o.File, row.TaskID)
}

func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
