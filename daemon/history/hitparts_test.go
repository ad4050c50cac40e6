package history

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// TestRunningRunsHitsReadAsRecorded: a run still recording has its hits
// in parts, batch by batch (here all members of the set the run before
// recorded), a miss among them. Every reader sees them as they were
// recorded, before and after the run finishes, and finishing it merges
// them into one row.
func TestRunningRunsHitsReadAsRecorded(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	hits := func(runID string, at time.Time) []Execution {
		var out []Execution
		for j := 0; j < 9; j++ {
			out = append(out, Execution{RunID: runID, TaskID: fmt.Sprintf("p%d#build", j), Project: fmt.Sprintf("p%d", j), Task: "build",
				Key: fmt.Sprint("k", j), Status: StatusPassed, Cache: CacheHit, ExitCode: intp(0),
				StartedAt: at.Add(time.Duration(j) * time.Millisecond), DurationMs: int64(j % 2)})
		}
		return out
	}
	first := addRun(t, s, "", t0, RunPassed, hits("", t0)...)
	second := &Run{Command: "vx run build", StartedAt: t0.Add(time.Minute)}
	if err := s.BeginRun(ctx, second); err != nil {
		t.Fatal(err)
	}
	want := hits(second.ID, second.StartedAt)
	// A miss between the hits: its row takes its place among them.
	want[4].Cache, want[4].Key, want[4].DurationMs = CacheMiss, "k4-new", 40
	for _, batch := range [][2]int{{0, 2}, {2, 7}, {7, 9}} {
		if err := s.RecordExecutions(ctx, want[batch[0]:batch[1]]); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		got, err := s.Executions(ctx, second.ID)
		if err != nil || len(got) != len(want) {
			t.Fatalf("%s: Executions = %d, %v; want %d", when, len(got), err, len(want))
		}
		for i := range got {
			got[i].StartedAt, want[i].StartedAt = got[i].StartedAt.UTC(), want[i].StartedAt.UTC()
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Executions =\n%+v\nwant\n%+v", when, got, want)
		}
		stats, err := s.TaskStats(ctx, Filter{Task: "build"})
		if err != nil || len(stats) != 9 {
			t.Fatalf("%s: TaskStats = %d tasks, %v", when, len(stats), err)
		}
		for j, st := range stats {
			wantHits := 2
			if j == 4 {
				wantHits = 1
			}
			if st.Count != 2 || st.Hits != wantHits || st.LastRunID != second.ID {
				t.Errorf("%s: %s: count %d hits %d last run %s; want 2, %d, %s", when, st.TaskID, st.Count, st.Hits, st.LastRunID, wantHits, second.ID)
			}
		}
		if _, n, err := s.Counts(ctx); err != nil || n != 18 {
			t.Errorf("%s: Counts = %d executions, %v; want 18", when, n, err)
		}
		prev, err := s.PreviousExecution(ctx, "p3#build", second.Seq)
		if err != nil || prev.RunID != first.ID {
			t.Errorf("%s: PreviousExecution(p3#build) = %+v, %v; want the first run's", when, prev, err)
		}
	}
	check("while it records")
	if err := s.FinishRun(ctx, second.ID, RunPassed, 0, second.StartedAt.Add(time.Second), 9, 0, 8); err != nil {
		t.Fatal(err)
	}
	check("finished")
	var rows, part int
	if err := s.w.QueryRow(`SELECT count(*), max(part) FROM run_hits WHERE run_id = ?`, second.ID).Scan(&rows, &part); err != nil || rows != 1 || part != 0 {
		t.Errorf("the finished run's hits: %d rows, part %d (%v); want one merged row", rows, part, err)
	}
}

// TestDeadRunsHitsMerged: the hits of a run whose vx died stay readable,
// and reaping it merges them into its set and counts them in its totals.
func TestDeadRunsHitsMerged(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	r := &Run{Command: "vx run build", StartedAt: t0, PID: deadPID(t), ProcStart: 1}
	if err := s.BeginRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var execs []Execution
	for j := 0; j < 5; j++ {
		execs = append(execs, Execution{RunID: r.ID, TaskID: fmt.Sprintf("p%d#build", j), Key: "k", Status: StatusPassed, Cache: CacheHit,
			StartedAt: t0.Add(time.Duration(j) * time.Second), DurationMs: 3})
	}
	if err := s.RecordExecutions(ctx, execs); err != nil {
		t.Fatal(err)
	}
	dead, err := s.ReapDeadRuns(ctx)
	if err != nil || len(dead) != 1 {
		t.Fatalf("ReapDeadRuns = %v, %v; want the run", dead, err)
	}
	got, err := s.ResolveRun(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != RunInterrupted || got.Tasks != 5 || got.Cached != 5 || !got.EndedAt.Equal(t0.Add(4*time.Second+3*time.Millisecond)) {
		t.Errorf("reaped run: %s, %d tasks, %d cached, ended %v; want interrupted, 5, 5, at the last hit's end", got.Status, got.Tasks, got.Cached, got.EndedAt)
	}
	var part int
	if err := s.w.QueryRow(`SELECT max(part) FROM run_hits WHERE run_id = ?`, r.ID).Scan(&part); err != nil || part != 0 {
		t.Errorf("the reaped run's hits: part %d (%v), want merged", part, err)
	}
	if e, err := s.Executions(ctx, r.ID); err != nil || len(e) != 5 {
		t.Errorf("Executions of the reaped run: %d, %v; want 5", len(e), err)
	}
}

// TestMergingPartsCostsLikeOnePart: finishing a run whose hits came in
// many batches, each naming the current set (a no-op run but for one
// task), allocates about what one batch's would: the set's members are
// not copied once per part.
func TestMergingPartsCostsLikeOnePart(t *testing.T) {
	const tasks = 2000
	finish := func(batches int) uint64 {
		ctx := context.Background()
		s, _ := openTemp(t)
		run := func(i, batch int) *Run {
			r := &Run{Command: "vx run build", StartedAt: t0.Add(time.Duration(i) * time.Minute)}
			if err := s.BeginRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			var execs []Execution
			for j := i; j < tasks; j++ { // the second run skips task 0
				execs = append(execs, Execution{RunID: r.ID, TaskID: fmt.Sprintf("p%04d#build", j), Key: "k", Status: StatusPassed,
					Cache: CacheHit, ExitCode: intp(0), StartedAt: r.StartedAt, DurationMs: 1})
			}
			for b := 0; b < len(execs); b += batch {
				if err := s.RecordExecutions(ctx, execs[b:min(b+batch, len(execs))]); err != nil {
					t.Fatal(err)
				}
			}
			return r
		}
		first := run(0, tasks)
		if err := s.FinishRun(ctx, first.ID, RunPassed, 0, first.StartedAt, tasks, 0, tasks); err != nil {
			t.Fatal(err)
		}
		second := run(1, (tasks+batches-1)/batches)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := s.FinishRun(ctx, second.ID, RunPassed, 0, second.StartedAt, tasks-1, 0, tasks-1); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	one, many := finish(1), finish(40)
	t.Logf("finishing: one part %d bytes, 40 parts %d", one, many)
	if many > 3*one {
		t.Errorf("finishing a run of 40 parts allocated %d bytes, of one part %d: the merge grows with parts × set size", many, one)
	}
}

// TestRecentByNameReadsOnlyThatName: the recent executions of a task
// name that only some runs executed (a lint beside thousands of cached
// builds) do not make an execution of every hit of every run walked.
func TestRecentByNameReadsOnlyThatName(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	const runs, tasks = 20, 2000
	for i := range runs {
		r := &Run{Command: "vx run build", StartedAt: t0.Add(time.Duration(i) * time.Minute)}
		if err := s.BeginRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		var execs []Execution
		if i == 0 {
			execs = append(execs, Execution{RunID: r.ID, TaskID: "web#lint", Key: "k", Status: StatusPassed, Cache: CacheMiss, StartedAt: r.StartedAt})
		}
		for j := range tasks {
			execs = append(execs, Execution{RunID: r.ID, TaskID: fmt.Sprintf("p%04d#build", j), Key: "k", Status: StatusPassed,
				Cache: CacheHit, ExitCode: intp(0), StartedAt: r.StartedAt, DurationMs: 1})
		}
		if err := s.RecordExecutions(ctx, execs); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRun(ctx, r.ID, RunPassed, 0, r.StartedAt, len(execs), 0, tasks); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := s.RecentExecutions(ctx, Filter{Task: "lint"})
	runtime.ReadMemStats(&after)
	if err != nil || len(got) != 1 || got[0].TaskID != "web#lint" {
		t.Fatalf("RecentExecutions(lint) = %+v, %v; want the one lint", got, err)
	}
	if alloc, limit := after.TotalAlloc-before.TotalAlloc, uint64(100*runs*tasks); alloc > limit {
		t.Errorf("RecentExecutions(lint) over %d runs of %d hits allocated %d bytes, want at most %d (100 a hit)", runs, tasks, alloc, limit)
	}
}
