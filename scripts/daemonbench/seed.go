package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/taskkey"
)

// The seeded history: runs of execsPerRun executions, each run building and
// testing one group of groupSize packages (build before test, packages in
// index order), so every task of the workspace is recorded about
// runs*execsPerRun/(2*projects) times. Before each run a file of the group
// changes (often), or a file of a low package that many depend on (rarely),
// so keys move both by a task's own inputs and through upstream keys. A
// miss fails now and then with compiler-style output; a failed build
// blocks its test and its dependents in the run; a test sometimes times
// out; forced runs re-run tasks whose key did not change, which makes some
// keys flaky. Keys are real taskkey.Components keys, and every key's
// components are stored, so whyDidThisRerun answers with real diffs.
const (
	execsPerRun = 20
	groupSize   = execsPerRun / 2
	filesPerPkg = 4 // src/index.js, src/util.js, src/f2.js, src/f3.js
)

type seedStats struct {
	Runs, Executions, Components            int
	Passed, Failed, Blocked, TimedOut, Hits int
	FailedRuns                              int
	Took                                    time.Duration
}

// whyTarget is a task whose latest execution has a key that moved.
type whyTarget struct {
	TaskID   string
	Upstream bool // moved (also) through an upstream key
	Own      bool // its own inputs moved
}

type seeder struct {
	ctx      context.Context
	root     string
	s        *history.Store
	rng      *rand.Rand
	projects []project
	rdeps    [][]int
	fileVer  [][]int
	runner   string
	global   string

	build, test []*taskkey.Components // nil = stale
	buildKey    []string
	testKey     []string
	stored      map[string]bool
	passedKey   map[string]string // task id → key of its last pass (the cache entry)
	lastKey     map[string]string // task id → key of its latest execution
	lastComp    map[string]*taskkey.Components
	target      whyTarget
	st          seedStats
}

func fileHash(project, file string, ver int) string {
	return hashing.SumString(fmt.Sprintf("%s/%s@%d", project, file, ver))[:32]
}

func seedHistory(ctx context.Context, root string, projects []project, executions int, seed uint64) (*seedStats, whyTarget, error) {
	start := time.Now()
	s, err := history.Open(ctx, history.Path(root), nil)
	if err != nil {
		return nil, whyTarget{}, err
	}
	defer s.Close()
	sd := &seeder{ctx: ctx, root: root, s: s, rng: rand.New(rand.NewPCG(seed, 0x68697374)), projects: projects,
		runner: "vx 0.1.0 linux/amd64", global: hashing.SumString("tsconfig")[:32],
		stored: map[string]bool{}, passedKey: map[string]string{}, lastKey: map[string]string{}, lastComp: map[string]*taskkey.Components{}}
	n := len(projects)
	sd.rdeps = make([][]int, n)
	sd.fileVer = make([][]int, n)
	for i, p := range projects {
		for _, d := range p.Deps {
			sd.rdeps[d] = append(sd.rdeps[d], i)
		}
		sd.fileVer[i] = make([]int, filesPerPkg)
	}
	sd.build = make([]*taskkey.Components, n)
	sd.test = make([]*taskkey.Components, n)
	sd.buildKey = make([]string, n)
	sd.testKey = make([]string, n)

	runs := max(1, executions/execsPerRun)
	groups := max(1, n/groupSize)
	first := time.Now().Add(-time.Duration(runs) * 17 * time.Minute)
	for i := 0; i < runs; i++ {
		g := i % groups
		// Edits since the previous run.
		if sd.rng.Float64() < 0.6 {
			sd.touch(g*groupSize + sd.rng.IntN(groupSize))
		}
		if sd.rng.Float64() < 0.02 {
			sd.touch(sd.rng.IntN(min(n, 50)))
		}
		if i == runs/2 {
			sd.runner = "vx 0.1.1 linux/amd64" // an upgrade: every key moves once
			sd.invalidateAll()
		}
		if i == runs-1 {
			// The last run: an edit deep in the graph, so the latest
			// executions of its group moved through upstream keys.
			sd.touch(sd.lowestDep(g))
		}
		force := sd.rng.Float64() < 0.01
		at := first.Add(time.Duration(i)*17*time.Minute + time.Duration(sd.rng.IntN(600))*time.Second)
		if err := sd.run(i, g, at, force); err != nil {
			return nil, whyTarget{}, fmt.Errorf("seeding run %d: %w", i, err)
		}
	}
	sd.st.Took = time.Since(start)
	return &sd.st, sd.target, nil
}

// lowestDep is the lowest-index package the group's packages reach.
func (sd *seeder) lowestDep(g int) int {
	low := g * groupSize
	var walk func(i int)
	seen := map[int]bool{}
	walk = func(i int) {
		if seen[i] {
			return
		}
		seen[i] = true
		low = min(low, i)
		for _, d := range sd.projects[i].Deps {
			walk(d)
		}
	}
	for i := g * groupSize; i < min(len(sd.projects), (g+1)*groupSize); i++ {
		walk(i)
	}
	return low
}

// touch changes one file of package p: its keys and every dependent's
// build key go stale.
func (sd *seeder) touch(p int) {
	sd.fileVer[p][sd.rng.IntN(filesPerPkg)]++
	q := []int{p}
	seen := map[int]bool{p: true}
	for len(q) > 0 {
		x := q[0]
		q = q[1:]
		sd.build[x], sd.test[x] = nil, nil
		for _, r := range sd.rdeps[x] {
			if !seen[r] {
				seen[r] = true
				q = append(q, r)
			}
		}
	}
}

func (sd *seeder) invalidateAll() {
	for i := range sd.build {
		sd.build[i], sd.test[i] = nil, nil
	}
}

func (sd *seeder) files(p int, test bool) map[string]string {
	name := sd.projects[p].Name
	m := map[string]string{"package.json": fileHash(name, "package.json", 0)}
	for f, v := range sd.fileVer[p] {
		file := "src/index.js"
		switch f {
		case 1:
			file = "src/util.js"
		case 2, 3:
			file = fmt.Sprintf("src/f%d.js", f)
		}
		m[file] = fileHash(name, file, v)
	}
	if test {
		m["test/index.test.js"] = fileHash(name, "test/index.test.js", 0)
	}
	return m
}

func (sd *seeder) put(c *taskkey.Components) (string, error) {
	k := c.Key()
	if !sd.stored[k] {
		if err := sd.s.PutComponents(sd.ctx, k, c.Encode()); err != nil {
			return "", err
		}
		sd.stored[k] = true
		sd.st.Components++
	}
	return k, nil
}

// buildComp returns package p's current build components and key,
// computing (and storing) stale upstream keys first.
func (sd *seeder) buildComp(p int) (*taskkey.Components, string, error) {
	if sd.build[p] != nil {
		return sd.build[p], sd.buildKey[p], nil
	}
	deps := map[string]string{}
	for _, d := range sd.projects[p].Deps {
		_, k, err := sd.buildComp(d)
		if err != nil {
			return nil, "", err
		}
		deps[projectName(d)+"#build"] = k
	}
	c := &taskkey.Components{Runner: sd.runner, Global: map[string]string{"tsconfig.base.json": sd.global},
		Definition: map[string]string{"command": "mkdir -p dist && cat src/*.js > dist/index.js", "dependsOn": `["^build"]`,
			"inputs": `["src/**","package.json"]`, "outputs": `["dist/**"]`, "cache": "true"},
		Env: map[string]string{"NODE_ENV": hashing.SumString("")[:32]}, Files: sd.files(p, false), Deps: deps}
	k, err := sd.put(c)
	if err != nil {
		return nil, "", err
	}
	sd.build[p], sd.buildKey[p] = c, k
	return c, k, nil
}

func (sd *seeder) testComp(p int) (*taskkey.Components, string, error) {
	if sd.test[p] != nil {
		return sd.test[p], sd.testKey[p], nil
	}
	_, bk, err := sd.buildComp(p)
	if err != nil {
		return nil, "", err
	}
	c := &taskkey.Components{Runner: sd.runner, Global: map[string]string{"tsconfig.base.json": sd.global},
		Definition: map[string]string{"command": "node --test test/", "dependsOn": `["build"]`, "inputs": `["src/**","test/**"]`, "cache": "true", "timeout": "2m"},
		Env:        map[string]string{"NODE_ENV": hashing.SumString("")[:32]}, Files: sd.files(p, true), Deps: map[string]string{projectName(p) + "#build": bk}}
	k, err := sd.put(c)
	if err != nil {
		return nil, "", err
	}
	sd.test[p], sd.testKey[p] = c, k
	return c, k, nil
}

// failureOutput is compiler- or test-runner-style output naming files of
// the package, from a few hundred bytes to tens of KiB.
func (sd *seeder) failureOutput(p int, task string) []byte {
	name := sd.projects[p].Name
	var b strings.Builder
	lines := 3 + sd.rng.IntN(40)
	if sd.rng.IntN(20) == 0 {
		lines = 600 // a long log now and then
	}
	if task == "build" {
		fmt.Fprintf(&b, "> %s@1.0.0 build\n> tsc -p tsconfig.json\n\n", name)
		for l := 0; l < lines; l++ {
			fmt.Fprintf(&b, "src/%s(%d,%d): error TS2322: Type 'string' is not assignable to type 'number'.\n", []string{"index.js", "util.js"}[sd.rng.IntN(2)], 1+sd.rng.IntN(300), 1+sd.rng.IntN(40))
		}
		fmt.Fprintf(&b, "\nFound %d errors in %d files.\n", lines, 1+sd.rng.IntN(4))
	} else {
		fmt.Fprintf(&b, "> %s@1.0.0 test\n> jest\n\nFAIL test/index.test.js\n", name)
		for l := 0; l < lines; l++ {
			fmt.Fprintf(&b, "  ● computes case %d\n\n    expect(received).toBe(expected) // "+
				"Object.is equality\n\n    Expected: %d\n    Received: %d\n\n      at Object.<anonymous> "+
				"(%s/packages/%s/test/index.test.js:%d:%d)\n\n",
				l, sd.rng.IntN(100), sd.rng.IntN(100), sd.root, name, 1+sd.rng.IntN(80), 3+sd.rng.IntN(20))
		}
		fmt.Fprintf(&b, "Tests:       %d failed, 5 passed, %d total\n", lines, lines+5)
	}
	return []byte(b.String())
}

func intp(i int) *int { return &i }

func (sd *seeder) run(i, g int, at time.Time, force bool) error {
	r := &history.Run{Command: fmt.Sprintf("vx run build test --filter ./packages/pkg-%04d..%04d", g*groupSize, (g+1)*groupSize-1),
		Args: []string{"run", "build", "test", "--filter", fmt.Sprintf("{./packages/pkg-%03d*}", g)}, StartedAt: at,
		GitBranch: []string{"main", "main", "feature/cache", "fix/flaky-tests"}[sd.rng.IntN(4)],
		GitCommit: hashing.SumString(fmt.Sprint("commit", i))[:32] + "00000000", CI: sd.rng.IntN(3) == 0}
	if force {
		r.Args = append(r.Args, "--force")
		r.Command += " --force"
	}
	if err := sd.s.BeginRun(sd.ctx, r); err != nil {
		return err
	}
	sr := &seededRun{id: r.ID, force: force, t: at, bad: map[string]bool{}, execs: make([]history.Execution, 0, execsPerRun)}
	for p := g * groupSize; p < min(len(sd.projects), (g+1)*groupSize); p++ {
		for _, task := range []string{"build", "test"} {
			if err := sd.execution(sr, p, task); err != nil {
				return err
			}
		}
	}
	if err := sd.s.RecordExecutions(sd.ctx, sr.execs); err != nil {
		return err
	}
	status, exit := history.RunPassed, 0
	if sr.failed > 0 {
		status, exit = history.RunFailed, 1
		sd.st.FailedRuns++
	}
	sd.st.Runs++
	sd.st.Executions += len(sr.execs)
	return sd.s.FinishRun(sd.ctx, r.ID, status, exit, sr.t.Add(500*time.Millisecond), len(sr.execs), sr.failed, sr.cached)
}

// seededRun is one seeded run in the making: its executions so far, the
// tasks that failed, timed out or were blocked in it, its clock and counts.
type seededRun struct {
	id             string
	force          bool
	t              time.Time
	bad            map[string]bool
	execs          []history.Execution
	failed, cached int
}

// blockers are the tasks whose failure in this run blocks project p's task.
func (sd *seeder) blockers(sr *seededRun, p int, task string) []string {
	name := sd.projects[p].Name
	var blockedBy []string
	if task == "build" {
		for _, d := range sd.projects[p].Deps {
			if sr.bad[projectName(d)+"#build"] {
				blockedBy = append(blockedBy, projectName(d)+"#build")
			}
		}
	} else if sr.bad[name+"#build"] {
		blockedBy = []string{name + "#build"}
	}
	return blockedBy
}

// execution seeds project p's task in the run: blocked, a hit, or a miss
// that passed, failed or timed out.
func (sd *seeder) execution(sr *seededRun, p int, task string) error {
	name := sd.projects[p].Name
	id := name + "#" + task
	e := history.Execution{RunID: sr.id, TaskID: id, Project: name, Task: task, StartedAt: sr.t,
		PeakRSSBytes: int64(40+sd.rng.IntN(400)) << 20, CPUParallelism: float64(10+sd.rng.IntN(30)) / 10}
	if blockedBy := sd.blockers(sr, p, task); len(blockedBy) > 0 {
		e.Status, e.Cache, e.BlockedBy, e.PeakRSSBytes, e.CPUParallelism = history.StatusBlocked, history.CacheOff, blockedBy, 0, 0
		sr.bad[id] = true
		sd.st.Blocked++
		sr.execs = append(sr.execs, e)
		return nil
	}
	var comp *taskkey.Components
	var err error
	if task == "build" {
		comp, e.Key, err = sd.buildComp(p)
	} else {
		comp, e.Key, err = sd.testComp(p)
	}
	if err != nil {
		return err
	}
	if !sr.force && sd.passedKey[id] == e.Key {
		e.Status, e.Cache, e.ExitCode, e.DurationMs = history.StatusPassed, history.CacheHit, intp(0), int64(3+sd.rng.IntN(25))
		sr.cached++
		sd.st.Hits++
	} else {
		sd.miss(sr, &e, p, task)
	}
	sd.rememberMove(id, e.Key, comp)
	sr.t = sr.t.Add(time.Duration(e.DurationMs) * time.Millisecond / 2)
	sr.execs = append(sr.execs, e)
	return nil
}

// miss gives an executed task its duration and its outcome: mostly
// passed, sometimes failed, rarely timed out (tests fail more, forced
// re-runs of unchanged keys more still: flaky tests show).
func (sd *seeder) miss(sr *seededRun, e *history.Execution, p int, task string) {
	name, id := sd.projects[p].Name, e.TaskID
	e.Cache = history.CacheMiss
	e.DurationMs = int64(400 + sd.rng.ExpFloat64()*1500)
	if task == "test" {
		e.DurationMs *= 3
	}
	failP := 0.04
	if task == "test" {
		failP = 0.06
		if sr.force {
			failP = 0.25
		}
	}
	switch x := sd.rng.Float64(); {
	case task == "test" && x < 0.005:
		e.Status, e.TimedOut, e.DurationMs = history.StatusTimedOut, true, 120000
		e.Output = []byte(fmt.Sprintf("> %s@1.0.0 test\n> node --test test/\n\n# Subtest: waits for the server\nvx: task timed out after 2m0s; the process group was killed\n", name))
		sr.bad[id] = true
		sr.failed++
		sd.st.TimedOut++
	case x < failP:
		e.Status, e.ExitCode = history.StatusFailed, intp(1+sd.rng.IntN(2))
		e.Output = sd.failureOutput(p, task)
		sr.bad[id] = true
		sr.failed++
		sd.st.Failed++
	default:
		e.Status, e.ExitCode = history.StatusPassed, intp(0)
		sd.passedKey[id] = e.Key
		sd.st.Passed++
	}
}

// rememberMove keeps the freshest key move for whyDidThisRerun,
// preferring a move through upstream keys (the deepest answer).
func (sd *seeder) rememberMove(id, key string, comp *taskkey.Components) {
	if prev, ok := sd.lastComp[id]; ok && sd.lastKey[id] != key {
		d := taskkey.Compare(prev, comp)
		wt := whyTarget{TaskID: id, Upstream: !d.Upstream.Empty(), Own: d.OwnInputsMoved()}
		if wt.Upstream || !sd.target.Upstream {
			sd.target = wt
		}
	}
	sd.lastKey[id], sd.lastComp[id] = key, comp
}
