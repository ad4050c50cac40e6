// Package runner executes a task graph: it computes every task's cache
// key, restores hits from the cache, runs misses on a worker pool that
// follows the graph, and records the run and each execution in the
// history. It also answers the dry run (a plan) without executing.
package runner

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/daemon/remotecache"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/taskkey"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// Options describe one invocation of vx run.
type Options struct {
	// Model is the workspace the run is over (ops sets it from its Env).
	Model *workspace.Model
	wire.Selection
	Continue    bool // keep running independent tasks after a failure
	Concurrency int  // 0: config, then one per CPU
	// Command is the command line recorded as the run's (the words after
	// "vx"); it is recorded, never parsed.
	Command []string
	Environ []string // vx's own environment; nil = os.Environ()
	Logger  zerolog.Logger
	Cache   *remotecache.Mode // --cache; nil reads and writes both caches
	// Early, when set, is the listing, stat cache and history started
	// before the model loaded (StartEarly); nil does it all here.
	Early *Early
	// Changes asks vxd what changed since the last run (nil: stat every
	// input, as without a daemon).
	Changes journal.ChangeSource
	// Plan prepares for a plan (Plan, not Execute): what only a run
	// needs, its output overlaps, is not computed ahead.
	Plan bool
	// Repeat, when set, is the journal token and request digest taken
	// before the model loaded: a run whose every task is an intact hit
	// leaves a memo on it that a later identical run may repeat
	// (daemon/journal).
	Repeat *journal.Base
}

// Prepared is a run's graph with every task's key computed.
type Prepared struct {
	Model    *workspace.Model
	Graph    *workspace.Graph
	Selected *workspace.Selected
	Keys     map[string]string
	Masker   *secret.Masker
	Env      map[string]string
	Warnings []string
	Workers  int
	// MemoryBudget bounds the summed peak RSS of running tasks, each
	// predicted from history (PeakRSS); 0 means no bound.
	MemoryBudget int64
	PeakRSS      map[string]int64
	hasher       *hashing.Hasher
	npm          npmLock           // npm: inputs' lockfile (npminputs.go)
	encoded      map[string][]byte // task id → its components as the history stores them
	early        *Early
	changes      chan *journal.Changes // vxd's answer, asked while the graph is built
	journal      *journal.Changes      // that answer once taken; nil without one
	// linked maps a project listed through its symbolic link (listLinked)
	// to the directory the link names.
	linked map[string]string
	// overlaps are the graph's and the whole model's output overlaps,
	// computed alongside the keys (they need only the graph): Execute's
	// serial start took 3–5 ms over them.
	overlaps func() (run, model []workspace.OutputOverlap)
	recs     []int32 // the listed files' stat cache records (Hasher.Records), nil for none
}

// rec is listed file i's stat cache record, -1 for none.
func (p *Prepared) rec(i int) int32 {
	if p.recs == nil {
		return -1
	}
	return p.recs[i]
}

// VXDir is the workspace's state directory.
func VXDir(root string) string { return layout.Dir(root) }

func environMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if i := strings.IndexByte(kv, '='); i > 0 {
			m[kv[:i]] = kv[i+1:]
		}
	}
	return m
}

// Workers resolves the worker count and where it came from.
func Workers(flag int, m *workspace.Model) (int, string) {
	switch {
	case flag > 0:
		return flag, "flag"
	case m != nil && m.Config.Workers > 0:
		return m.Config.Workers, "config"
	default:
		return runtime.NumCPU(), "default"
	}
}

// secretValues lists the values of every secret variable the model
// declares, read from env; they are what a Masker masks.
func secretValues(m *workspace.Model, env map[string]string) []string {
	return workspace.SecretValues(m.Root, m, env)
}

// Prepare selects projects, builds the graph and computes every key.
func Prepare(ctx context.Context, o *Options) (*Prepared, error) {
	m := o.Model
	env := o.Environ
	if env == nil {
		env = os.Environ()
	}
	p := &Prepared{Model: m, Env: environMap(env), Keys: map[string]string{}, encoded: map[string][]byte{}, Warnings: m.PluginWarnings()}
	p.Masker = secret.NewMasker(secretValues(m, p.Env)...)
	p.Workers, _ = Workers(o.Concurrency, m)
	o.Early.startPrestat(m.Root)
	p.changes = make(chan *journal.Changes, 1)
	go func() {
		c, how, ok := o.Early.openedJournal(m.Root)
		if !ok {
			c, how = journal.OpenChanges(ctx, m.Root, o.Changes)
		}
		o.Logger.Debug().Str("files", how).Msg("change journal")
		p.changes <- c
	}()
	p.MemoryBudget, _ = MemoryBudget(p.Env)
	sel, err := m.Select(ctx, o.Selection)
	if err != nil {
		return nil, err
	}
	p.Selected = sel
	g, err := m.Build(o.Tasks, sel.Projects, o.Selection.AllProjects())
	if err != nil {
		return nil, err
	}
	p.Graph = g
	// Sized for every node: grown as the keys fold, they rehashed a
	// dozen times each at 10,000 tasks.
	p.Keys, p.encoded = make(map[string]string, len(g.Nodes)), make(map[string][]byte, len(g.Nodes))
	p.overlaps = sync.OnceValues(func() ([]workspace.OutputOverlap, []workspace.OutputOverlap) {
		return g.OutputOverlaps(), m.RunOverlaps(g)
	})
	if !o.Plan {
		go func() {
			// A panic here is the caller's to see: OnceValues raises it
			// again where Execute asks for the overlaps, on a goroutine
			// that recovers.
			defer func() { _ = recover() }()
			p.overlaps()
		}()
	}
	e := o.Early.wait(m.Root)
	if e == nil {
		// Nothing was started early for this root (a workspace vx never
		// ran, or a caller without the command line's early start): the
		// listing is made in computeKeys, the history opened by Execute.
		e = &Early{root: m.Root, hasher: hashing.NewHasher(layout.StatCache(m.Root))}
	}
	p.early, p.hasher = e, e.hasher
	// The history's peaks are read while the keys are computed.
	peaks := make(chan map[string]int64, 1)
	go func() {
		if pk := e.waitHistory(m.Root).peaks; pk != nil {
			peaks <- pk
			return
		}
		peaks <- peakRSS(ctx, m.Root)
	}()
	err = p.computeKeys(ctx, e.files, e.listed)
	e.files = nil // the listing (7 MB at 10,000 packages) is used up
	p.PeakRSS = <-peaks
	if err != nil {
		return nil, err
	}
	return p, nil
}

// computeKeys hashes every node's inputs (in parallel) and then folds the
// keys in topological order.
func (p *Prepared) computeKeys(ctx context.Context, all []string, err error) error {
	m := p.Model
	changes := <-p.changes
	p.journal = changes
	changes.Attach(p.hasher)
	// With vxd's answer the listing is the journal's to check; without
	// a listing made early (none is, where a daemon is up), list here.
	if changes != nil || (all == nil && err == nil) {
		all, err = p.early.journalFiles(ctx, changes)
	}
	if err != nil {
		return fmt.Errorf("listing workspace files: %w", err)
	}
	p.recs = p.hasher.Records(m.Root, all)
	p.hasher.ForgetUnlisted(p.recs)
	global, err := p.hashGlobals(all)
	if err != nil {
		return err
	}
	if err := p.hashNodes(all, global); err != nil {
		return err
	}
	_ = p.hasher.Save()
	_ = changes.Save()
	// The keys are made: the stat cache and the records found in it are
	// not needed again (11 MB at 10,000 packages, live to the end).
	p.hasher.Release()
	p.recs = nil
	return nil
}

// hashGlobals hashes the workspace's globalInputs among the listed files,
// warning of a pattern that matches none.
func (p *Prepared) hashGlobals(all []string) (map[string]string, error) {
	m := p.Model
	global := map[string]string{}
	for i, f := range all {
		if workspace.MatchesAny(m.Config.GlobalInputs, f) {
			h, err := p.hasher.HashRecord(filepath.Join(m.Root, f), p.rec(i))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("hashing global input %s: %w", f, err)
			}
			global[f] = h
		}
	}
	for _, g := range m.Config.GlobalInputs {
		if !hasMatch(g, global) {
			p.Warnings = append(p.Warnings, fmt.Sprintf("globalInputs %q matches no file", g))
		}
	}
	return global, nil
}

// hashNodes hashes every node's inputs on one worker per CPU, each
// encoding its node's key components but the upstream keys. The keys fold
// in graph order while the workers hash: a worker that finishes a node
// folds every node ready in order, unless another already is (the fold
// was 3–5 ms of one core after the last hash; a folding goroutine woken
// per node cost a wake-up, and a wait for a CPU, per node).
func (p *Prepared) hashNodes(all []string, global map[string]string) error {
	nodes := p.Graph.Nodes
	f := &folder{p: p, global: global, comps: make([]*taskkey.Components, len(nodes)), before: make([][]byte, len(nodes)),
		errs: make([]error, len(nodes)), ready: make([]atomic.Bool, len(nodes))}
	p.runHashWorkers(all, f)
	f.fold() // what was ready after each worker's last try
	for _, err := range f.errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// folder folds keys in graph order as their nodes are hashed.
type folder struct {
	p      *Prepared
	global map[string]string
	comps  []*taskkey.Components
	before [][]byte
	errs   []error
	ready  []atomic.Bool // node i's slots are filled
	mu     sync.Mutex    // the one folding
	next   int           // the next node to fold
	failed bool
}

// done marks node i hashed and folds what is ready, unless another worker
// is folding (it or the final fold takes node i).
func (f *folder) done(i int) {
	f.ready[i].Store(true)
	if f.mu.TryLock() {
		f.foldLocked()
		f.mu.Unlock()
	}
}

func (f *folder) fold() {
	f.mu.Lock()
	f.foldLocked()
	f.mu.Unlock()
}

func (f *folder) foldLocked() {
	nodes := f.p.Graph.Nodes
	for ; !f.failed && f.next < len(nodes) && f.ready[f.next].Load(); f.next++ {
		if f.errs[f.next] != nil {
			f.failed = true
			return
		}
		f.p.foldKey(nodes[f.next], f.global, f.comps[f.next], f.before[f.next])
		// Folded: the key's encoding holds all of them now, and
		// at 10,000 tasks these were 15 MB kept to the end of Prepare.
		f.comps[f.next], f.before[f.next] = nil, nil
	}
}

// runHashWorkers runs hashNodes' workers to the end: each takes the next
// node from a shared counter (a goroutine per node handed through a
// semaphore cost the runtime a wake-up, and a spinning thread's sleep,
// per node) and fills its slots in f.
func (p *Prepared) runHashWorkers(all []string, f *folder) {
	m := p.Model
	byDir, recsByDir := groupByProject(m, all, p.recs)
	if err := p.listLinked(byDir, recsByDir); err != nil {
		if len(f.errs) > 0 {
			f.errs[0] = err // hashNodes answers it
		}
		return
	}
	// A project's files that any of its tasks declares as outputs are
	// never inputs: what a task produces reaches its dependents through
	// the producer's key, not through the files' contents.
	outputsOf := map[string][]string{}
	for _, n := range p.Graph.Nodes {
		if _, done := outputsOf[n.Project]; done || n.Project == workspace.RootProject {
			continue
		}
		outputsOf[n.Project] = projectOutputs(m, n.Project)
	}
	nodes := p.Graph.Nodes
	p.hasher.StopPrestat() // the workers stat what it has not
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < min(runtime.NumCPU(), len(nodes)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(nodes); i = int(next.Add(1) - 1) {
				if n := nodes[i]; !n.Def.NoOp() {
					list, recs := byDir[n.Dir], recsByDir[n.Dir]
					if n.Project == workspace.RootProject {
						list, recs = rootFiles(m, all, n.Def), nil
						if len(list) == len(all) {
							recs = p.recs // every file, in order
						}
					}
					var files map[string]string
					if files, f.errs[i] = p.hashInputs(n, list, recs, outputsOf[n.Project]); f.errs[i] == nil {
						f.errs[i] = p.hashDepInputs(n, byDir, recsByDir, outputsOf, files)
					}
					if f.errs[i] == nil {
						f.errs[i] = p.hashRootInputs(n, all, files)
					}
					if f.errs[i] == nil {
						f.errs[i] = p.hashNpmInputs(n, files)
					}
					if f.errs[i] == nil {
						// All but the upstream keys, encoded here
						// in parallel; the keys fold in graph order.
						f.comps[i] = p.components(n, f.global, files)
						f.before[i] = f.comps[i].EncodeBeforeDeps(len(n.Deps))
					}
				}
				f.done(i)
			}
		}()
	}
	wg.Wait()
}

// foldKey completes a node's components with its upstream keys (its
// dependencies come first in graph order, so theirs are known) and
// computes its key; a no-op node's components are made here.
func (p *Prepared) foldKey(n *workspace.Node, global map[string]string, c *taskkey.Components, before []byte) {
	if c == nil {
		c = p.components(n, global, nil)
		before = c.EncodeBeforeDeps(len(n.Deps))
	}
	for _, d := range n.Deps {
		c.Deps[d.ID] = p.Keys[d.ID]
	}
	p.Keys[n.ID], p.encoded[n.ID] = c.KeyAndEncodeWith(before)
}

// Components are task id's key components, decoded from the encoding the
// history stores (the only form kept: each task's maps of files, hashes
// and definition held until the run ended were some 13 MB at 10,000
// tasks); nil for a task not in the graph.
func (p *Prepared) Components(id string) (*taskkey.Components, error) {
	b, ok := p.encoded[id]
	if !ok {
		return nil, nil
	}
	return taskkey.Decode(b)
}

// components are a node's key components but its upstream keys (Deps,
// empty).
func (p *Prepared) components(n *workspace.Node, global, files map[string]string) *taskkey.Components {
	m := p.Model
	c := &taskkey.Components{Runner: taskkey.Version + " vx/" + version.Version, Global: global, Files: files, Env: map[string]string{}, Deps: map[string]string{}}
	if c.Files == nil {
		c.Files = map[string]string{}
	}
	c.Definition = definitionOf(n)
	// Masked before the key is hashed and the components stored: a
	// secret's value never joins the key, and no reader of the
	// history (why, whyDidThisRerun, explain-rerun) can see it.
	for field, v := range c.Definition {
		c.Definition[field] = p.Masker.String(v)
	}
	for _, name := range append(append([]string{}, m.Config.Env...), n.Def.Env...) {
		if v, ok := p.Env[name]; ok {
			// Masked first: a secret listed in env too joins neither
			// the key nor the stored components, not even as a hash.
			c.Env[name] = hashing.SumString(p.Masker.String(v))[:16]
		} else {
			c.Env[name] = ""
		}
	}
	return c
}

func definitionOf(n *workspace.Node) map[string]string {
	d := n.Def
	join := func(s []string) string { return strings.Join(s, "\n") }
	def := map[string]string{
		"command":   d.Command,
		"dir":       n.Dir,
		"inputs":    join(d.Inputs),
		"outputs":   join(d.Outputs),
		"env":       join(d.Env),
		"passEnv":   join(d.PassEnv),
		"dependsOn": join(d.DependsOn),
		"secrets":   join(d.Secrets()),
	}
	var plain []string
	for name, v := range d.ExecEnv {
		if !v.Secret && v.Value != nil {
			plain = append(plain, name+"="+*v.Value)
		}
	}
	sort.Strings(plain)
	def["execEnv"] = join(plain)
	if v := sandboxKey(d.Sandbox); v != "" {
		def["sandbox"] = v
	}
	return def
}

// sandboxKey is what a task's sandbox adds to its key: what an enforced
// sandbox denies (writes beyond its outputs and write globs, and the
// network when not allowed) shaped the result, so the key moves with it,
// and a hit from an unconfined run never stands for a confined one. A
// report-mode sandbox denies nothing, and required only decides whether a
// run starts at: neither joins the key ("" for none), so turning report
// mode on or off keeps every cached result.
func sandboxKey(sb *workspace.SandboxDef) string {
	if sb == nil || sb.Mode != wire.SandboxEnforce {
		return ""
	}
	return fmt.Sprintf("mode=%s network=%t write=%s", sb.Mode, sb.Network, strings.Join(sb.Write, ","))
}

// groupByProject maps each project dir to its files, relative to it, and
// to their stat cache records (recs[i] is all[i]'s, Hasher.Records; nil
// for none).
func groupByProject(m *workspace.Model, all []string, recs []int32) (map[string][]string, map[string][]int32) {
	// Counted first, then placed into one array of each: appending to a
	// slice per project left up to half of each unused, and at 10,000
	// packages the grown slices were 5 MB live through the hashing (and
	// as much again of garbage) for 2.5 MB of entries.
	of := make([]*workspace.Project, len(all))
	count := make(map[*workspace.Project]int, len(m.Projects))
	order := make([]*workspace.Project, 0, len(m.Projects)) // by their first listed file
	total := 0
	for i, f := range all {
		p := m.ProjectOf(f)
		if p == nil {
			continue
		}
		of[i] = p
		if count[p] == 0 {
			order = append(order, p)
		}
		count[p]++
		total++
	}
	files := make([]string, total)
	var frecs []int32
	if recs != nil {
		frecs = make([]int32, total)
	}
	out, outRecs := make(map[string][]string, len(order)), make(map[string][]int32, len(order))
	next := make(map[*workspace.Project]int, len(order)) // where p's next file goes
	base := 0
	for _, p := range order {
		n := count[p]
		next[p] = base
		// Capped: an append to one project's list cannot reach the next.
		out[p.Dir] = files[base : base+n : base+n]
		if recs != nil {
			outRecs[p.Dir] = frecs[base : base+n : base+n]
		}
		base += n
	}
	for i, p := range of {
		if p == nil {
			continue
		}
		j := next[p]
		files[j] = strings.TrimPrefix(all[i], p.Dir+"/")
		if recs != nil {
			frecs[j] = recs[i]
		}
		next[p] = j + 1
	}
	return out, outRecs
}

// rootFiles are a root task's candidate inputs: with inputs globs, every
// workspace file (the globs pick); without, the files that belong to no
// project, as for a project's default.
func rootFiles(m *workspace.Model, all []string, d workspace.TaskDef) []string {
	if len(d.Inputs) > 0 {
		return all
	}
	var out []string
	for _, f := range all {
		if m.ProjectOf(f) == nil {
			out = append(out, f)
		}
	}
	return out
}

// projectOutputs lists the outputs globs of every task defined in a project.
func projectOutputs(m *workspace.Model, project string) []string {
	var out []string
	for _, name := range m.TaskNames() {
		if outputs, _, ok := m.TaskOutputs(project, name); ok {
			for _, g := range outputs {
				if !strings.HasPrefix(g, "!") && !slices.Contains(out, g) {
					out = append(out, g)
				}
			}
		}
	}
	return out
}

// hashInputs hashes a node's inputs among files, recs[i] being files[i]'s
// stat cache record (nil: none known).
func (p *Prepared) hashInputs(n *workspace.Node, files []string, recs []int32, outputs []string) (map[string]string, error) {
	out := make(map[string]string, len(files))
	base := p.projectBase(n.Dir)
	outputs = trimDot(outputs)
	for i, f := range files {
		if !selectedInput(n.Def, f) || workspace.MatchesAny(outputs, f) {
			continue
		}
		h, ok, err := p.hashFile(n.Dir, base, f, recs, i)
		if err != nil {
			return nil, fmt.Errorf("hashing %s: %w", filepath.Join(n.Dir, f), err)
		}
		if ok {
			out[f] = h
		}
	}
	return out, nil
}

// hashFile hashes the file rel under base (the workspace directory dir),
// recs[i] being its stat cache record (recs nil: none known); ok is false
// when the file is gone.
func (p *Prepared) hashFile(dir, base, rel string, recs []int32, i int) (h string, ok bool, err error) {
	// One the journal proves needs neither a stat nor its absolute path.
	if h, ok := p.hasher.ProvenHash(dir, rel); ok {
		return h, true, nil
	}
	rec, abs := int32(-1), ""
	if recs != nil {
		rec = recs[i]
		abs = p.hasher.RecordPath(rec) // the same path, not joined again
	}
	if abs == "" {
		abs = filepath.Join(base, filepath.FromSlash(rel))
	}
	h, err = p.hasher.HashRecord(abs, rec)
	if err != nil {
		if os.IsNotExist(err) {
			return "", false, nil
		}
		return "", false, err
	}
	return h, true, nil
}

// hashDepInputs adds to files the inputs a node's "^" globs select in
// the projects its project depends on, directly or not: each file keyed
// "^" and its workspace-relative path. The dependency projects' outputs
// are never inputs, as for the task's own files.
func (p *Prepared) hashDepInputs(n *workspace.Node, byDir map[string][]string, recsByDir map[string][]int32, outputsOf map[string][]string, files map[string]string) error {
	globs := workspace.DepInputs(n.Def.Inputs)
	if len(globs) == 0 || n.Project == workspace.RootProject {
		return nil
	}
	for _, dp := range p.Model.DepClosure(n.Project) {
		outputs, ok := outputsOf[dp.Name]
		if !ok {
			outputs = projectOutputs(p.Model, dp.Name)
		}
		outputs = trimDot(outputs)
		recs := recsByDir[dp.Dir]
		base := p.projectBase(dp.Dir)
		for i, f := range byDir[dp.Dir] {
			if !workspace.MatchInputs(globs, f) || workspace.MatchesAny(outputs, f) {
				continue
			}
			h, ok, err := p.hashFile(dp.Dir, base, f, recs, i)
			if err != nil {
				return fmt.Errorf("hashing %s: %w", path.Join(dp.Dir, f), err)
			}
			if ok {
				files["^"+path.Join(dp.Dir, f)] = h
			}
		}
	}
	return nil
}

// hashRootInputs adds to files the workspace files a node's "/" globs
// select, each keyed by "/" and its workspace-relative path.
func (p *Prepared) hashRootInputs(n *workspace.Node, all []string, files map[string]string) error {
	globs := workspace.RootInputs(n.Def.Inputs)
	if len(globs) == 0 {
		return nil
	}
	for i, f := range all {
		if !workspace.MatchInputs(globs, f) {
			continue
		}
		h, ok, err := p.hashFile("", p.Model.Root, f, p.recs, i)
		if err != nil {
			return fmt.Errorf("hashing %s: %w", f, err)
		}
		if ok {
			files["/"+f] = h
		}
	}
	return nil
}

// selectedInput reports whether a project file is an input of the task:
// it matches the inputs globs (all files when none), is not excluded by a
// "!" glob, and is not one of the task's outputs.
func selectedInput(d workspace.TaskDef, f string) bool {
	in := len(d.Inputs) == 0
	for _, g := range d.Inputs {
		if strings.HasPrefix(g, "^") || strings.HasPrefix(strings.TrimPrefix(g, "!"), "/") || strings.HasPrefix(g, "npm:") {
			continue // a dependency project's files (hashDepInputs), a workspace file (hashRootInputs)
		}
		if strings.HasPrefix(g, "!") {
			if workspace.MatchGlob(strings.TrimPrefix(g[1:], "./"), f) {
				return false
			}
			continue
		}
		if workspace.MatchGlob(strings.TrimPrefix(g, "./"), f) {
			in = true
		}
	}
	if !in {
		return false
	}
	for _, g := range d.Outputs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		if workspace.MatchGlob(strings.TrimPrefix(g, "./"), f) {
			return false
		}
	}
	return true
}

func trimDot(globs []string) []string {
	out := make([]string, len(globs))
	for i, g := range globs {
		out[i] = strings.TrimPrefix(g, "./")
	}
	return out
}

func hasMatch(g string, files map[string]string) bool {
	for f := range files {
		if workspace.MatchGlob(g, f) {
			return true
		}
	}
	return false
}

// MemoryBudget is the memory a run plans against: VX_MEMORY_BUDGET (a
// size such as 8GiB), else three quarters of the machine's memory.
func MemoryBudget(env map[string]string) (int64, string) {
	if v := env["VX_MEMORY_BUDGET"]; v != "" {
		if n, err := cache.ParseSize(v); err == nil && n > 0 {
			return n, "env"
		}
	}
	return totalMemory() * 3 / 4, "default"
}

// peakRSS reads each task's largest recorded peak RSS from the history
// (none when there is no history yet).
func peakRSS(ctx context.Context, root string) map[string]int64 {
	out := map[string]int64{}
	h, err := history.OpenReadOnly(ctx, history.Path(root), nil)
	if err != nil {
		return out
	}
	defer h.Close()
	return peaksFrom(ctx, h)
}

// peaksFrom reads each task's largest recorded peak RSS from h (none on
// an error: the run plans without them).
func peaksFrom(ctx context.Context, h *history.Store) map[string]int64 {
	out, err := h.PeakRSS(ctx)
	if err != nil {
		return map[string]int64{}
	}
	return out
}
