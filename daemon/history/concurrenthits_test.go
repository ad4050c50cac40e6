package history

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// recordNoOps opens its own Store on path and records runs fully cached
// runs of the first tasks tasks, two batches each, and answers their ids.
func recordNoOps(ctx context.Context, path string, tasks, runs int) (ids []string, err error) {
	s, err := Open(ctx, path, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for i := 0; i < runs; i++ {
		r := &Run{Command: "vx run build", StartedAt: time.Now()}
		if err := s.BeginRun(ctx, r); err != nil {
			return nil, err
		}
		var execs []Execution
		for j := 0; j < tasks; j++ {
			execs = append(execs, Execution{RunID: r.ID, TaskID: fmt.Sprintf("p%d#build", j), Key: fmt.Sprint("k", j),
				Status: StatusPassed, Cache: CacheHit, ExitCode: intp(0), StartedAt: time.Now(), DurationMs: 1})
		}
		for _, b := range [][]Execution{execs[:tasks/2], execs[tasks/2:]} {
			if err := s.RecordExecutions(ctx, b); err != nil {
				return nil, err
			}
		}
		if err := s.FinishRun(ctx, r.ID, RunPassed, 0, time.Now(), tasks, 0, tasks); err != nil {
			return nil, err
		}
		ids = append(ids, r.ID)
	}
	return ids, nil
}

// TestConcurrentNoOpRunsCountEveryHit: two vx recording fully cached
// runs into one history at once, one of them selecting a task fewer
// (sets one member apart, each folding the other's), count every hit
// once and name each task's newest run.
func TestConcurrentNoOpRunsCountEveryHit(t *testing.T) {
	ctx := context.Background()
	path := Path(t.TempDir())
	const tasks, runs = 9, 15
	var wg sync.WaitGroup
	ids := make([][]string, 2)
	errs := make([]error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[w], errs[w] = recordNoOps(ctx, path, tasks-w, runs)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := OpenReadOnly(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, n, err := s.Counts(ctx); err != nil || n != int64(runs*(2*tasks-1)) {
		t.Errorf("Counts = %d executions, %v; want %d", n, err, runs*(2*tasks-1))
	}
	// Each task's newest run: the last of the runs that hit it.
	list, err := s.ListRuns(ctx, MaxLimit, 0)
	if err != nil {
		t.Fatal(err)
	}
	writer := map[string]int{}
	for w := range ids {
		for _, id := range ids[w] {
			writer[id] = w
		}
	}
	newest := func(j int) string {
		for _, r := range list { // newest first
			if j < tasks-writer[r.ID] {
				return r.ID
			}
		}
		return ""
	}
	stats, err := s.TaskStats(ctx, Filter{})
	if err != nil || len(stats) != tasks {
		t.Fatalf("TaskStats = %d tasks, %v", len(stats), err)
	}
	for j, st := range stats {
		want := 2 * runs
		if j == tasks-1 {
			want = runs
		}
		if st.Count != want || st.Hits != want || st.Cacheable != want || st.LastRunID != newest(j) || st.LastStatus != StatusPassed {
			t.Errorf("%s: count %d hits %d cacheable %d, last %s %s; want %d, %d, %d, last %s passed",
				st.TaskID, st.Count, st.Hits, st.Cacheable, st.LastStatus, st.LastRunID, want, want, want, newest(j))
		}
		if e, err := s.LatestExecution(ctx, st.TaskID); err != nil || e.RunID != newest(j) {
			t.Errorf("LatestExecution(%s) = %+v, %v; want run %s", st.TaskID, e, err, newest(j))
		}
	}
	for _, r := range list {
		if e, err := s.Executions(ctx, r.ID); err != nil || len(e) != tasks-writer[r.ID] {
			t.Errorf("Executions(%s) = %d, %v; want %d", r.ID, len(e), err, tasks-writer[r.ID])
		}
	}
}

// TestUpgradeRace: a schema 8 history with per-hit rows opened by two vx
// at once is migrated once; both record, and every answer counts the old
// rows and the new hits.
func TestUpgradeRace(t *testing.T) {
	ctx := context.Background()
	path := copyHalfFixture(t)
	before := func() int64 {
		s, err := OpenReadOnly(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, n, err := s.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// A read-only open refuses the old schema: count its rows as the
	// fixture holds them.
	db := openDB(dsn(path, "mode=ro"))
	var old int64
	err := db.QueryRow(`SELECT count(*) FROM executions`).Scan(&old)
	db.Close()
	if err != nil || old == 0 {
		t.Fatalf("the fixture's executions: %d, %v", old, err)
	}
	const tasks, runs = 6, 5
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[w] = recordNoOps(ctx, path, tasks, runs)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, want := before(), old+2*tasks*runs; got != want {
		t.Errorf("after the upgrade, %d executions; want the fixture's %d and %d hits", got, old, 2*tasks*runs)
	}
}
