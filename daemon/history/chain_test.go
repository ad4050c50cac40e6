package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

var chainTasks = []string{"web#build", "web#test", "web#lint", "webx#build", "api#build", "api#test", "lib#build", "//#lint"}

// randomHistory records runs begun by two stores on one file, their
// executions arriving in random batches that mix runs, so that a row of
// an older run often arrives after a newer run recorded its task; some
// runs record a task twice. Run starts are not in seq order (a clock
// step).
func randomHistory(t *testing.T, rng *rand.Rand, stores [2]*Store, rounds int) {
	t.Helper()
	ctx := context.Background()
	zero, one := 0, 1
	for round := 0; round < rounds; round++ {
		var pending []Execution
		for range 1 + rng.Intn(3) {
			started := t0.Add(time.Duration(round)*time.Hour + time.Duration(rng.Intn(120)-60)*time.Minute)
			r := &Run{Command: "vx run build", StartedAt: started}
			if err := stores[rng.Intn(2)].BeginRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			for _, id := range chainTasks {
				for range [...]int{0, 1, 1, 1, 2}[rng.Intn(5)] { // mostly one execution, some none, some two
					e := Execution{RunID: r.ID, TaskID: id, Key: fmt.Sprintf("k%d", rng.Intn(4)), Status: StatusPassed, Cache: CacheMiss,
						ExitCode: &zero, StartedAt: started, DurationMs: int64(rng.Intn(500))}
					switch rng.Intn(8) {
					case 0:
						e.Cache = CacheHit
					case 1:
						e.Status, e.ExitCode = StatusFailed, &one
					case 2:
						e.Status, e.Key, e.ExitCode, e.BlockedBy = StatusBlocked, "", nil, []string{"lib#build"}
					case 3:
						e.Status, e.ExitCode = statusInterrupted, nil
					case 4:
						e.Status, e.Key, e.ExitCode = statusSkipped, "", nil
					}
					pending = append(pending, e)
				}
			}
		}
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		runs := map[string]bool{}
		for len(pending) > 0 {
			n := min(1+rng.Intn(9), len(pending))
			if err := stores[rng.Intn(2)].RecordExecutions(ctx, pending[:n]); err != nil {
				t.Fatal(err)
			}
			for _, e := range pending[:n] {
				runs[e.RunID] = true
			}
			pending = pending[n:]
		}
		// Most runs finish (their hits become a set); some stay running
		// (their hits stay parts).
		for _, id := range slices.Sorted(maps.Keys(runs)) {
			if rng.Intn(4) == 0 {
				continue
			}
			if err := stores[rng.Intn(2)].FinishRun(ctx, id, RunPassed, 0, t0.Add(time.Duration(round+1)*time.Hour), 0, 0, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// walkChain follows prev_id from the task's head, one row at a time.
func walkChain(t *testing.T, db *sql.DB, task string) []int64 {
	t.Helper()
	var ids []int64
	var id sql.NullInt64
	err := db.QueryRow(`SELECT last_id FROM task_stats WHERE task_id = ?`, task).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	for err == nil && id.Valid {
		ids = append(ids, id.Int64)
		if len(ids) > 100000 {
			t.Fatalf("chain of %s does not end (a cycle?)", task)
		}
		err = db.QueryRow(`SELECT prev_id FROM executions WHERE id = ?`, id.Int64).Scan(&id)
	}
	if err != nil {
		t.Fatalf("walking the chain of %s: %v", task, err)
	}
	return ids
}

// scanOrder is every execution of task, newest first, read by a table scan.
func scanOrder(t *testing.T, db *sql.DB, task string) []int64 {
	t.Helper()
	rows, err := db.Query(`SELECT id FROM executions NOT INDEXED WHERE task_id = ? ORDER BY run_seq DESC, id DESC`, task)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// checkChains asserts that every task's chain is its executions in
// (run_seq, id) order, newest first.
func checkChains(t *testing.T, db *sql.DB) {
	t.Helper()
	rows, err := db.Query(`SELECT DISTINCT task_id FROM executions NOT INDEXED ORDER BY task_id`)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for rows.Next() {
		var task string
		if err := rows.Scan(&task); err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, task)
	}
	rows.Close()
	if len(tasks) == 0 {
		t.Fatal("no executions to check the chains of")
	}
	for _, task := range tasks {
		if got, want := walkChain(t, db, task), scanOrder(t, db, task); !slices.Equal(got, want) {
			t.Errorf("chain of %s: %v, want %v (by a scan ordered by run_seq, id)", task, got, want)
		}
	}
	var firsts int
	if err := db.QueryRow(`SELECT count(*) FROM executions WHERE prev_id IS NULL`).Scan(&firsts); err != nil || firsts != len(tasks) {
		t.Errorf("%d executions start a chain (%v), want one per task: %d", firsts, err, len(tasks))
	}
}

// TestChainReadersMatchScans: on a random history of interleaved runs,
// every reader that walks a chain answers what a scan of the executions
// ordered by (run_seq, id) answers.
func TestChainReadersMatchScans(t *testing.T) {
	ctx := context.Background()
	for _, seed := range []int64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			s, path := openTemp(t)
			s2, err := Open(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			randomHistory(t, rand.New(rand.NewSource(seed)), [2]*Store{s, s2}, 30)
			checkReadersMatchScans(t, s)
		})
	}
}

func checkReadersMatchScans(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	db, err := s.reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkChains(t, db)
	var maxSeq int64
	if err := db.QueryRow(`SELECT max(seq) FROM runs`).Scan(&maxSeq); err != nil {
		t.Fatal(err)
	}
	all := everyExecution(t, s)
	for _, task := range append(chainTasks, "nope#build") {
		of := func(keep func(r *ExecRow) bool) []ExecRow {
			var out []ExecRow
			for _, r := range all {
				if r.TaskID == task && keep(&r) {
					out = append(out, r)
				}
			}
			return out
		}
		want := of(func(*ExecRow) bool { return true })
		got, err := s.LatestExecution(ctx, task)
		if len(want) == 0 {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("LatestExecution(%s) = %+v, %v; want not found", task, got, err)
			}
		} else if err != nil || !reflect.DeepEqual(*got, want[0].Execution) {
			t.Errorf("LatestExecution(%s) = %+v, %v; want %+v", task, got, err, want[0])
		}
		for before := int64(0); before <= maxSeq+1; before++ {
			b := before
			if b == 0 {
				b = 1 << 62
			}
			want := of(func(r *ExecRow) bool {
				return r.RunSeq < b && r.Key != "" && r.Status != StatusBlocked && r.Status != statusSkipped && r.Status != statusInterrupted
			})
			if len(want) == 0 {
				want = of(func(r *ExecRow) bool { return r.RunSeq < b })
			}
			got, err := s.PreviousExecution(ctx, task, before)
			if len(want) == 0 {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("PreviousExecution(%s, %d) = %+v, %v; want not found", task, before, got, err)
				}
			} else if err != nil || !reflect.DeepEqual(*got, want[0].Execution) {
				t.Errorf("PreviousExecution(%s, %d) = %+v, %v; want %+v", task, before, got, err, want[0])
			}
		}
		project, name, _ := strings.Cut(task, "#")
		for _, limit := range []int{1, 3, 10, 500} {
			got, err := s.RecentExecutions(ctx, Filter{Project: project, Task: name, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			want := withoutOutput(of(func(*ExecRow) bool { return true }), limit)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("RecentExecutions(%s, limit %d): %d rows, a scan %d, or they differ", task, limit, len(got), len(want))
			}
		}
	}
	checkStats(t, s, all)
	for _, project := range []string{"web", "api", "//", "nope"} {
		var ofProject []ExecRow
		for _, r := range all {
			if r.Project == project {
				ofProject = append(ofProject, r)
			}
		}
		for _, limit := range []int{1, 7, 500} {
			got, err := s.RecentExecutions(ctx, Filter{Project: project, Limit: limit})
			if err != nil {
				t.Fatal(err)
			}
			if want := withoutOutput(ofProject, limit); !reflect.DeepEqual(got, want) {
				t.Errorf("RecentExecutions(project %s, limit %d): %d rows, a scan %d, or they differ", project, limit, len(got), len(want))
			}
		}
		for _, since := range []time.Time{t0.Add(-time.Hour), t0.Add(7 * time.Hour), t0.Add(20 * time.Hour), t0.Add(100 * time.Hour)} {
			runs, execs, hits, err := s.CacheActivity(ctx, since, project)
			if err != nil {
				t.Fatal(err)
			}
			wr, we, wh := activityOf(ofProject, since)
			if runs != wr || execs != we || hits != wh {
				t.Errorf("CacheActivity(%s, %v): %d runs %d executions %d hits, a scan %d %d %d", project, since, runs, execs, hits, wr, we, wh)
			}
		}
	}
}

// checkStats compares TaskStats' counts and last execution with those
// of every execution, all (newest first).
func checkStats(t *testing.T, s *Store, all []ExecRow) {
	t.Helper()
	stats, err := s.TaskStats(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	type counts struct {
		count, hits, cacheable, attempts int
		last                             string
	}
	want := map[string]*counts{}
	for _, r := range all {
		c := want[r.TaskID]
		if c == nil {
			c = &counts{last: r.Status + " " + r.RunID}
			want[r.TaskID] = c
		}
		c.count++
		c.hits += boolInt(r.Cache == CacheHit)
		c.cacheable += boolInt(r.Cache != CacheOff)
		c.attempts += boolInt(isAttempt(r.Status))
	}
	if len(stats) != len(want) {
		t.Errorf("TaskStats: %d tasks, the executions name %d", len(stats), len(want))
	}
	for _, st := range stats {
		got := counts{st.Count, st.Hits, st.Cacheable, st.Attempts, st.LastStatus + " " + st.LastRunID}
		if w := want[st.TaskID]; w == nil || got != *w {
			t.Errorf("TaskStats(%s) = %+v, the executions say %+v", st.TaskID, got, w)
		}
	}
}

// everyExecution reads every execution of the history run by run
// (Executions), newest first: by run, then in reverse recording order.
// It is what the readers by task and by project must agree with.
func everyExecution(t *testing.T, s *Store) []ExecRow {
	t.Helper()
	ctx := context.Background()
	var out []ExecRow
	var before int64
	for {
		runs, err := s.ListRuns(ctx, MaxLimit, before)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			execs, err := s.Executions(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			for i := len(execs) - 1; i >= 0; i-- {
				out = append(out, ExecRow{Execution: execs[i], RunStartedAt: r.StartedAt, RunSeq: r.Seq})
			}
			before = r.Seq
		}
		if len(runs) < MaxLimit {
			return out
		}
	}
}

// withoutOutput is the first limit of rows as RecentExecutions reads
// them: without outputs.
func withoutOutput(rows []ExecRow, limit int) []ExecRow {
	var out []ExecRow
	for _, r := range rows[:min(limit, len(rows))] {
		r.Output = nil
		out = append(out, r)
	}
	return out
}

// activityOf counts the runs begun since since among rows, the rows and
// their hits.
func activityOf(rows []ExecRow, since time.Time) (runs, execs, hits int) {
	seqs := map[int64]bool{}
	for _, r := range rows {
		if r.RunStartedAt.Before(since) {
			continue
		}
		seqs[r.RunSeq] = true
		execs++
		if r.Cache == CacheHit {
			hits++
		}
	}
	return len(seqs), execs, hits
}

// TestChainSplice: two processes' runs record out of order. A row of an
// older run that arrives after newer runs recorded its task is spliced in
// where it belongs, in its own batch or in a batch with newer rows, and
// the head stays the newest.
func TestChainSplice(t *testing.T) {
	ctx := context.Background()
	a, path := openTemp(t)
	b, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	begin := func(s *Store) *Run {
		r := &Run{Command: "vx run build", StartedAt: t0}
		if err := s.BeginRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	record := func(s *Store, runs ...*Run) {
		var execs []Execution
		for _, r := range runs {
			execs = append(execs, Execution{RunID: r.ID, TaskID: "web#build", Key: "k" + r.ID, Status: StatusPassed, Cache: CacheMiss, StartedAt: t0})
		}
		if err := s.RecordExecutions(ctx, execs); err != nil {
			t.Fatal(err)
		}
	}
	r1, r2, r3, r4, r5 := begin(a), begin(b), begin(a), begin(b), begin(a)
	record(b, r4)     // head r4
	record(a, r1)     // before r4: spliced at the tail
	record(a, r3)     // between r1 and r4
	record(b, r5, r2) // r5 becomes head; r2 between r1 and r3 in the same batch
	record(a, r3)     // r3 again: after the first r3, before r4

	db, err := a.reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, id := range walkChain(t, db, "web#build") {
		var run string
		if err := db.QueryRow(`SELECT run_id FROM executions WHERE id = ?`, id).Scan(&run); err != nil {
			t.Fatal(err)
		}
		order = append(order, run)
	}
	if want := []string{r5.ID, r4.ID, r3.ID, r3.ID, r2.ID, r1.ID}; !slices.Equal(order, want) {
		t.Errorf("chain by run: %v, want %v", order, want)
	}
	checkChains(t, db)
	latest, err := b.LatestExecution(ctx, "web#build")
	if err != nil || latest.RunID != r5.ID {
		t.Errorf("LatestExecution = %+v, %v; want run %s", latest, err, r5.ID)
	}
	prev, err := b.PreviousExecution(ctx, "web#build", r3.Seq)
	if err != nil || prev.RunID != r2.ID {
		t.Errorf("PreviousExecution(before #%d) = %+v, %v; want run %s", r3.Seq, prev, err, r2.ID)
	}
	stats, err := b.TaskStats(ctx, Filter{Project: "web", Task: "build"})
	if err != nil || len(stats) != 1 || stats[0].LastRunID != r5.ID || stats[0].Count != 6 {
		t.Errorf("TaskStats = %+v, %v; want 6 executions, the last in run %s", stats, err, r5.ID)
	}
}

// toSchema6 turns a current history back into schema 6: no chain, the
// executions_task index.
func toSchema6(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`ALTER TABLE executions DROP COLUMN prev_id`,
		`CREATE INDEX executions_task ON executions(task_id, run_seq)`,
		`PRAGMA user_version = 6`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A schema-6 history with interleaved runs migrates: every task's chain is
// its executions in (run_seq, id) order, executions_task is gone, the
// readers answer what scans answer, and recording goes on along the
// chains.
func TestMigrateTaskChain(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	s2, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	randomHistory(t, rng, [2]*Store{s, s2}, 12)
	s.Close()
	s2.Close()
	toSchema6(t, path)

	var logs bytes.Buffer
	m, err := Open(ctx, path, &Options{Logger: zerolog.New(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if !strings.Contains(logs.String(), "run history migrated") || !strings.Contains(logs.String(), `"from":6`) {
		t.Errorf("opening a schema 6 history logged %q, want a migration from 6", logs.String())
	}
	var n, v int
	if err := m.w.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'executions_task'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("executions_task after the migration: %d (%v)", n, err)
	}
	if err := m.w.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil || v != SchemaVersion {
		t.Errorf("user_version after the migration: %d (%v), want %d", v, err, SchemaVersion)
	}
	checkReadersMatchScans(t, m)
	m2, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	randomHistory(t, rng, [2]*Store{m, m2}, 6)
	checkReadersMatchScans(t, m)
}

// The migration also makes each task's head in task_stats its newest
// execution, where a schema-6 history had them disagree.
func TestMigrateTaskChainHeads(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	for i := range 3 {
		addRun(t, s, "", t0.Add(time.Duration(i)*time.Minute), RunPassed,
			Execution{TaskID: "web#build", Key: fmt.Sprint("k", i), Status: StatusPassed},
			Execution{TaskID: "api#build", Key: fmt.Sprint("k", i), Status: StatusPassed})
	}
	s.Close()
	toSchema6(t, path)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE task_stats SET last_id = 1, last_seq = 1, last_status = 'failed' WHERE task_id = 'web#build'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	m, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	rdb, err := m.reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkChains(t, rdb)
	stats, err := m.TaskStats(ctx, Filter{Project: "web", Task: "build"})
	if err != nil || len(stats) != 1 || stats[0].LastStatus != StatusPassed {
		t.Errorf("TaskStats(web#build) after the migration = %+v, %v; want the last status passed", stats, err)
	}
}

// A history already at SchemaVersion opens as it is: no migration logged,
// its links left exactly as stored.
func TestOpenCurrentSchemaDoesNotMigrate(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	for i := range 3 {
		addRun(t, s, "", t0.Add(time.Duration(i)*time.Minute), RunPassed, Execution{TaskID: "web#build", Key: "k", Status: StatusPassed})
	}
	s.Close()
	// A link no migration would leave: the first execution's prev_id
	// names the last. Only a step that relinks would change it.
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE executions SET prev_id = 3 WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var logs bytes.Buffer
	s, err = Open(ctx, path, &Options{Logger: zerolog.New(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if strings.Contains(logs.String(), "migrated") || strings.Contains(logs.String(), "another vx version") {
		t.Errorf("opening a schema %d history logged %q", SchemaVersion, logs.String())
	}
	var prev sql.NullInt64
	if err := s.w.QueryRow(`SELECT prev_id FROM executions WHERE id = 1`).Scan(&prev); err != nil || prev.Int64 != 3 {
		t.Errorf("prev_id of execution 1 after opening: %v (%v), want 3 as stored", prev, err)
	}
}
