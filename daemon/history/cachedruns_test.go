// The test of the hit-set record (issue 30, "History that scales"):
// fully cached runs recorded as sets answer as the per-hit rows did.
// Refresh the golden answers only from a build that records a row per
// hit: -run TestCachedRuns -update.

package history

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/cachedruns.golden.json from this build's answers")

// cachedTasks is the workspace of the sequence: enough tasks that rows per
// hit stand out from rows per run.
const cachedTasks = 12

var cachedT0 = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// seqRun is one run of the sequence: the executions it records, in order.
type seqRun struct {
	status string
	execs  []Execution
}

// keyOf is task j's cache key at version v of its sources.
func keyOf(j, v int) string { return fmt.Sprintf("k%02d-v%d", j, v) }

// cachedSequence is a cold run, no-op runs, an edit, a failure, a flaky
// retry (a pass of the failed key in the next run, and a fail-then-pass of
// one key inside one run), remote hits, and no-op runs again.
func cachedSequence(noops int) []seqRun {
	version := make([]int, cachedTasks)
	all := func(run int, mod func(j int, e *Execution) bool) seqRun {
		r := seqRun{status: RunPassed}
		for j := 0; j < cachedTasks; j++ {
			e := Execution{TaskID: fmt.Sprintf("p%02d#build", j%4) + fmt.Sprint(j/4), Key: keyOf(j, version[j]),
				Status: StatusPassed, Cache: CacheHit, ExitCode: intp(0),
				StartedAt:  cachedT0.Add(time.Duration(run)*time.Minute + time.Duration(j)*time.Millisecond),
				DurationMs: int64((run + j) % 3)}
			if mod != nil && !mod(j, &e) {
				continue
			}
			r.execs = append(r.execs, e)
			if e.Status == StatusFailed {
				r.status = RunFailed
			}
		}
		return r
	}
	miss := func(e *Execution, ms int64) {
		e.Cache, e.DurationMs, e.PeakRSSBytes, e.CPUParallelism = CacheMiss, ms, 1<<20+ms, 0.5
	}
	var seq []seqRun
	seq = append(seq, all(0, func(j int, e *Execution) bool { miss(e, int64(100+7*j)); return true }))
	noop := func() {
		for i := 0; i < noops; i++ {
			seq = append(seq, all(len(seq), nil))
		}
	}
	noop()
	// An edit of task 0.
	version[0]++
	seq = append(seq, all(len(seq), func(j int, e *Execution) bool {
		if j == 0 {
			e.Key = keyOf(0, version[0])
			miss(e, 130)
		}
		return true
	}))
	noop()
	// Task 1 edited and failing; task 2 blocked by it.
	version[1]++
	seq = append(seq, all(len(seq), func(j int, e *Execution) bool {
		switch j {
		case 1:
			e.Key = keyOf(1, version[1])
			miss(e, 90)
			e.Status, e.ExitCode, e.Output = StatusFailed, intp(1), []byte("boom\n")
		case 2:
			e.Status, e.Cache, e.Key, e.ExitCode, e.DurationMs, e.BlockedBy = StatusBlocked, CacheMiss, "", nil, 0, []string{"p01#build0"}
		}
		return true
	}))
	// The same key passes on a retry: task 1 is flaky. Task 3 fails and
	// passes again within the run, on one key.
	seq = append(seq, all(len(seq), func(j int, e *Execution) bool {
		switch j {
		case 1, 2:
			miss(e, 95)
		case 3:
			miss(e, 40)
		}
		return true
	}))
	last := &seq[len(seq)-1]
	retry := last.execs[3]
	last.execs[3].Status, last.execs[3].ExitCode, last.execs[3].Output = StatusFailed, intp(1), []byte("once\n")
	retry.DurationMs = 41
	last.execs = append(last.execs, retry)
	noop()
	// Hits from the remote cache, then no-op runs again.
	seq = append(seq, all(len(seq), func(j int, e *Execution) bool {
		if j%5 == 0 {
			e.CacheSource = "remote"
		}
		return true
	}))
	noop()
	return seq
}

// seqRunID is the id of run i of the sequence.
func seqRunID(i int) string { return fmt.Sprintf("%02x%010x", i, 0xa0) }

// recordSequence records the runs of seq from the from-th on into s, run i
// with id seqRunID(i).
func recordSequence(t *testing.T, s *Store, seq []seqRun, from int) []*Run {
	t.Helper()
	var runs []*Run
	for i := from; i < len(seq); i++ {
		r := seq[i]
		runs = append(runs, addRun(t, s, seqRunID(i), cachedT0.Add(time.Duration(i)*time.Minute), r.status, r.execs...))
	}
	return runs
}

// historyRows counts the rows of every table of the history.
func historyRows(t *testing.T, path string) int64 {
	t.Helper()
	db := openDB(dsn(path, "mode=ro"))
	defer db.Close()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	var total int64
	for _, name := range tables {
		var n int64
		if err := db.QueryRow(`SELECT count(*) FROM "` + name + `"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

// TestNoOpRunsAddConstantRows: after a run has recorded its hits once,
// every further fully cached run of the same set adds rows that do not
// grow with the number of tasks.
func TestNoOpRunsAddConstantRows(t *testing.T) {
	s, path := openTemp(t)
	seq := cachedSequence(0)
	recordSequence(t, s, seq[:1], 0)
	noop := cachedSequence(12)[1:13]
	for i := range noop {
		for j := range noop[i].execs {
			noop[i].execs[j].StartedAt = cachedT0.Add(time.Duration(i+1) * time.Minute)
		}
	}
	var before int64
	for i, r := range noop {
		addRun(t, s, fmt.Sprintf("%02x%010x", i+1, 0xb0), cachedT0.Add(time.Duration(i+1)*time.Minute), r.status, r.execs...)
		if i == 1 {
			before = historyRows(t, path)
		}
	}
	added := historyRows(t, path) - before
	perRun := float64(added) / float64(len(noop)-2)
	// A run row and a reference to the hit set, with room for one more.
	if perRun > 3 {
		t.Errorf("each no-op run of %d tasks added %.1f rows (%d over %d runs); want at most 3, whatever the task count",
			cachedTasks, perRun, added, len(noop)-2)
	}
}

// answers is everything the tools ask the history, for one database.
type answers struct {
	Runs        []Run                     `json:"runs"`
	Latest      Run                       `json:"latest"`
	LatestFail  Run                       `json:"latestFailed"`
	Previous    map[string]*Run           `json:"previous"`
	Executions  map[string][]Execution    `json:"executions"`
	Outputs     map[string]string         `json:"outputs"`
	Execution   map[string]*Execution     `json:"execution"`
	LatestExec  map[string]*Execution     `json:"latestExecution"`
	PrevExec    map[string]*Execution     `json:"previousExecution"`
	Recent      map[string][]ExecRow      `json:"recent"`
	Stats       []TaskStat                `json:"stats"`
	Flaky       []string                  `json:"flaky"`
	P50s        map[string]int64          `json:"p50s"`
	Activity    map[string][3]int         `json:"activity"`
	Trends      map[string][]Bucket       `json:"trends"`
	Counts      [2]int64                  `json:"counts"`
	Peaks       map[string]int64          `json:"peaks"`
	Remote      map[string]RemoteActivity `json:"remote"`
	WithPrefix  []Run                     `json:"withPrefix"`
	ResolvedPre string                    `json:"resolvedPrefix"`
}

// ok is v, panicking (failing the test) on err.
func ok[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// collect asks s every question the tools ask, of every run and task.
func collect(t *testing.T, s *Store, runs []*Run) *answers {
	t.Helper()
	ctx := context.Background()
	a := &answers{Previous: map[string]*Run{}, Executions: map[string][]Execution{}, Outputs: map[string]string{},
		Execution: map[string]*Execution{}, LatestExec: map[string]*Execution{}, PrevExec: map[string]*Execution{},
		Recent: map[string][]ExecRow{}, Activity: map[string][3]int{}, Trends: map[string][]Bucket{}, Remote: map[string]RemoteActivity{}}
	for _, r := range ok(s.ListRuns(ctx, MaxLimit, 0)) {
		a.Runs = append(a.Runs, utcRun(r))
	}
	a.Latest = utcRun(*ok(s.LatestRun(ctx)))
	a.LatestFail = utcRun(*ok(s.LatestFailedRun(ctx)))
	a.WithPrefix = ok(s.RunsWithPrefix(ctx, "0", 100))
	for i := range a.WithPrefix {
		a.WithPrefix[i] = utcRun(a.WithPrefix[i])
	}
	a.ResolvedPre = ok(s.ResolveRun(ctx, runs[len(runs)-1].ID[:4])).ID
	tasks := map[string]bool{}
	for _, r := range runs {
		if p, err := s.PreviousRun(ctx, r); err == nil {
			u := utcRun(*p)
			a.Previous[r.ID] = &u
		}
		for _, e := range ok(s.Executions(ctx, r.ID)) {
			tasks[e.TaskID] = true
			if e.Output != nil {
				a.Outputs[r.ID+"/"+e.TaskID] = string(e.Output)
			}
			a.Executions[r.ID] = append(a.Executions[r.ID], utcExec(e))
		}
		for task := range tasks {
			if e, err := s.Execution(ctx, r.ID, task); err == nil {
				u := utcExec(*e)
				a.Execution[r.ID+"/"+task] = &u
			}
			if e, err := s.PreviousExecution(ctx, task, r.Seq); err == nil {
				u := utcExec(*e)
				a.PrevExec[fmt.Sprintf("%s/%d", task, r.Seq)] = &u
			}
		}
	}
	var ids []string
	for task := range tasks {
		ids = append(ids, task)
		u := utcExec(*ok(s.LatestExecution(ctx, task)))
		a.LatestExec[task] = &u
	}
	for _, f := range []Filter{{}, {Limit: MaxLimit}, {Project: "p01"}, {Project: "p01", Limit: 300}, {Task: "build2"},
		{Project: "p03", Task: "build0", Limit: 500}, {Project: "p01", Task: "build0"}} {
		var rows []ExecRow
		for _, r := range ok(s.RecentExecutions(ctx, f)) {
			r.Execution = utcExec(r.Execution)
			r.RunStartedAt = r.RunStartedAt.UTC()
			rows = append(rows, r)
		}
		a.Recent[fmt.Sprintf("%+v", f)] = rows
	}
	a.Stats = ok(s.TaskStats(ctx, Filter{}))
	a.Flaky = ok(s.FlakyTasks(ctx))
	a.P50s = ok(s.P50s(ctx, ids))
	for _, since := range []time.Time{cachedT0, cachedT0.Add(5 * time.Minute), cachedT0.Add(40 * time.Minute)} {
		for _, project := range []string{"", "p01", "p03"} {
			runs, execs, hits, err := s.CacheActivity(ctx, since, project)
			a.Activity[since.Format(time.RFC3339)+"/"+project] = [3]int{runs, execs, ok(hits, err)}
			a.Remote[since.Format(time.RFC3339)+"/"+project] = ok(s.RemoteActivitySince(ctx, since, project))
		}
	}
	for _, b := range []string{"hour", "day"} {
		for _, k := range ok(s.Trends(ctx, b, 10)) {
			k.Start = k.Start.UTC()
			a.Trends[b] = append(a.Trends[b], k)
		}
	}
	a.Counts[0], a.Counts[1] = must2(s.Counts(ctx))
	a.Peaks = ok(s.PeakRSS(ctx))
	return a
}

func must2(a, b int64, err error) (int64, int64) {
	if err != nil {
		panic(err)
	}
	return a, b
}

// TestCachedRunsAnswerAsPerHitRows: a history recorded by this build
// answers every tool's question as the per-hit record answered it
// (testdata/cachedruns.golden.json), and the no-op runs of the sequence add
// rows that do not grow with the task count.
func TestCachedRunsAnswerAsPerHitRows(t *testing.T) {
	s, path := openTemp(t)
	seq := cachedSequence(2)
	runs := recordSequence(t, s, seq, 0)
	if *updateGolden {
		writeHalfFixture(t, seq)
	}
	checkGolden(t, collect(t, s, runs), "cachedruns.golden.json", *updateGolden)
	// Rows: the executions of hits replayed as a set are not rows each.
	var hits int64
	for _, r := range seq {
		for _, e := range r.execs {
			if e.Cache == CacheHit {
				hits++
			}
		}
	}
	if rows := historyRows(t, path); rows >= hits {
		t.Errorf("the history holds %d rows for %d runs with %d hits: hits are still recorded a row each", rows, len(seq), hits)
	}
}

// halfRuns is how many runs of the sequence testdata/cachedruns-half.db
// holds: the cold run, the no-op runs and the edit.
const halfRuns = 4

// writeHalfFixture writes testdata/cachedruns-half.db: the first halfRuns
// runs of seq as this build records them, in a fresh history.
func writeHalfFixture(t *testing.T, seq []seqRun) {
	t.Helper()
	half, _ := openTemp(t)
	recordSequence(t, half, seq[:halfRuns], 0)
	out := filepath.Join("testdata", "cachedruns-half.db")
	os.Remove(out)
	if _, err := half.w.Exec(`VACUUM INTO ?`, out); err != nil {
		t.Fatal(err)
	}
}

// copyHalfFixture copies testdata/cachedruns-half.db to where a fresh
// workspace's history lives, and answers that path.
func copyHalfFixture(t *testing.T) string {
	t.Helper()
	fixture, err := os.ReadFile(filepath.Join("testdata", "cachedruns-half.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := Path(t.TempDir())
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCachedRunsAnswerAfterUpgrade: a history written by the per-hit record
// (testdata/cachedruns-half.db, the first runs of the sequence), opened and
// written on by this build, answers as if one build had recorded it all.
func TestCachedRunsAnswerAfterUpgrade(t *testing.T) {
	path := copyHalfFixture(t)
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seq := cachedSequence(2)
	recordSequence(t, s, seq, halfRuns)
	var runs []*Run
	for i := range seq {
		runs = append(runs, ok(s.ResolveRun(context.Background(), seqRunID(i))))
	}
	checkGolden(t, collect(t, s, runs), "cachedruns.golden.json", false)
}

// checkGolden compares a with testdata/name, which it writes first when
// update is set.
func checkGolden(t *testing.T, a any, name string, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(a, "", "")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		dump := filepath.Join(t.TempDir(), "got.json")
		os.WriteFile(dump, got, 0o644)
		t.Errorf("answers differ from the per-hit record's (%s) near byte %d: %q",
			golden, firstDiff(got, want), got[max(0, firstDiff(got, want)-200):min(len(got), firstDiff(got, want)+100)])
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
