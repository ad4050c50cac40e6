// Hit sets under the orders a real workspace records in: two vx
// recording at once, a run whose selection drops one task, hits recorded
// after the run finished, a run whose vx died mid-way and was reaped.
// Refresh testdata/interleavedruns.golden.json only from a build that
// records a row per hit: -run TestInterleavedRunsAnswerAsPerHitRows -update.

package history

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// interleaved records the sequence into s and answers every run.
type interleaved struct {
	t       *testing.T
	s       *Store
	runs    []*Run
	version [cachedTasks]int
}

func (w *interleaved) begin(pid int) *Run {
	w.t.Helper()
	i := len(w.runs)
	r := &Run{ID: seqRunID(i), Command: "vx run build", StartedAt: cachedT0.Add(time.Duration(i) * time.Minute), PID: pid, ProcStart: 1}
	if err := w.s.BeginRun(context.Background(), r); err != nil {
		w.t.Fatal(err)
	}
	w.runs = append(w.runs, r)
	return r
}

// execs are r's executions of tasks from..to-1 (a hit each unless mod
// says otherwise), in order.
func (w *interleaved) record(r *Run, from, to int, mod func(j int, e *Execution)) {
	w.t.Helper()
	var out []Execution
	for j := from; j < to; j++ {
		e := Execution{RunID: r.ID, TaskID: fmt.Sprintf("p%02d#build%d", j%4, j/4), Project: fmt.Sprintf("p%02d", j%4), Task: fmt.Sprint("build", j/4),
			Key: keyOf(j, w.version[j]), Status: StatusPassed, Cache: CacheHit, CacheSource: "local", ExitCode: intp(0),
			StartedAt: r.StartedAt.Add(time.Duration(j) * time.Millisecond), DurationMs: int64(j % 3)}
		if mod != nil {
			mod(j, &e)
		}
		out = append(out, e)
	}
	if err := w.s.RecordExecutions(context.Background(), out); err != nil {
		w.t.Fatal(err)
	}
}

func (w *interleaved) finish(r *Run, status string) {
	w.t.Helper()
	if err := w.s.FinishRun(context.Background(), r.ID, status, 0, r.StartedAt.Add(30*time.Second), cachedTasks, 0, 0); err != nil {
		w.t.Fatal(err)
	}
}

func (w *interleaved) run(mod func(j int, e *Execution)) {
	w.runWith(RunPassed, mod)
}

func (w *interleaved) runWith(status string, mod func(j int, e *Execution)) {
	r := w.begin(0)
	w.record(r, 0, cachedTasks, mod)
	w.finish(r, status)
}

func missed(ms int64) func(e *Execution) {
	return func(e *Execution) {
		e.Cache, e.CacheSource, e.DurationMs, e.PeakRSSBytes, e.CPUParallelism = CacheMiss, "", ms, 1<<20+ms, 0.5
	}
}

// TestInterleavedRunsAnswerAsPerHitRows: whatever the order runs record
// their hits in, every tool's answer is the per-hit record's.
func TestInterleavedRunsAnswerAsPerHitRows(t *testing.T) {
	s, _ := openTemp(t)
	w := &interleaved{t: t, s: s}
	stages := map[string]*answers{}
	// A cold run, task 11 failing.
	w.runWith(RunFailed, func(j int, e *Execution) {
		missed(int64(100 + j))(e)
		if j == 11 {
			e.Status, e.ExitCode, e.Output = StatusFailed, intp(1), []byte("cold\n")
		}
	})
	w.run(nil)
	// A selection without the last task: a set one member short.
	r := w.begin(0)
	w.record(r, 0, cachedTasks-1, nil)
	w.finish(r, RunPassed)
	w.run(nil)
	// Two vx at once: a records half, b begins and records a third, a
	// records the rest with task 7 edited, b records the rest (the new
	// key of 7 a hit now) and finishes first.
	a, b := w.begin(0), w.begin(0)
	w.record(a, 0, 6, nil)
	w.record(b, 0, 4, nil)
	w.version[7]++
	w.record(a, 6, cachedTasks, func(j int, e *Execution) {
		if j == 7 {
			missed(70)(e)
		}
	})
	w.record(b, 4, cachedTasks, nil)
	stages["both recording"] = collect(t, s, w.runs)
	w.finish(b, RunPassed)
	stages["one finished"] = collect(t, s, w.runs)
	w.finish(a, RunPassed)
	// Hits recorded after the run finished.
	r = w.begin(0)
	w.record(r, 0, 6, nil)
	w.finish(r, RunPassed)
	w.record(r, 6, cachedTasks, nil)
	stages["hits after finishing"] = collect(t, s, w.runs)
	// A vx killed mid-way, with a failure among its hits; the next run
	// reaps it.
	r = w.begin(deadPID(t))
	w.version[2]++
	w.record(r, 0, 5, func(j int, e *Execution) {
		if j == 2 {
			missed(20)(e)
			e.Status, e.ExitCode, e.Output = StatusFailed, intp(1), []byte("boom\n")
		}
	})
	stages["dead"] = collect(t, s, w.runs)
	if _, err := s.ReapDeadRuns(context.Background()); err != nil {
		t.Fatal(err)
	}
	stages["reaped"] = collect(t, s, w.runs)
	// The failed key fails again, then passes on a retry (flaky), with a
	// remote hit and a hit with no exit code.
	w.runWith(RunFailed, func(j int, e *Execution) {
		if j == 2 {
			missed(22)(e)
			e.Status, e.ExitCode, e.Output = StatusFailed, intp(1), []byte("boom again\n")
		}
	})
	w.run(func(j int, e *Execution) {
		switch j {
		case 2:
			missed(25)(e)
		case 5:
			e.CacheSource = "remote"
		case 9:
			e.ExitCode = nil
		}
	})
	w.run(nil)
	w.run(nil)
	stages["end"] = collect(t, s, w.runs)
	checkGolden(t, stages, "interleavedruns.golden.json", *updateGolden)
}
