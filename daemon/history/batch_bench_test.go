package history

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkRecordHits is the history write of a fully cached run of 1,000
// tasks (docs/benchmarks.md): each iteration begins a run, records 1,000
// cache hits whose tasks already have statistics, and finishes the run.
//
//	go test ./daemon/history -run '^$' -bench RecordHits
func BenchmarkRecordHits(b *testing.B) { benchRecordHits(b, 0) }

// BenchmarkRecordHitsLongHistory is the same write into a history that
// already holds 300 runs of the 1,000 tasks (300,000 executions): the
// write must not grow with the history.
func BenchmarkRecordHitsLongHistory(b *testing.B) { benchRecordHits(b, 300) }

// benchRecordHits times the 1,000-hit write after prior runs of the same
// tasks (recorded ten runs to a call, to build the history fast).
func benchRecordHits(b *testing.B, prior int) {
	ctx := context.Background()
	s, err := Open(ctx, Path(b.TempDir()), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const tasks = 1000
	zero := 0
	execsOf := func(r *Run, cache string) []Execution {
		execs := make([]Execution, tasks)
		for j := range execs {
			execs[j] = Execution{RunID: r.ID, TaskID: fmt.Sprintf("pkg-%04d#build", j), Project: fmt.Sprintf("pkg-%04d", j), Task: "build",
				Key: fmt.Sprintf("%032x", j), Status: StatusPassed, Cache: cache, ExitCode: &zero, StartedAt: r.StartedAt, DurationMs: 40}
		}
		return execs
	}
	begin := func() *Run {
		r := &Run{Command: "vx run build", StartedAt: time.Now()}
		if err := s.BeginRun(ctx, r); err != nil {
			b.Fatal(err)
		}
		return r
	}
	finish := func(r *Run) {
		if err := s.FinishRun(ctx, r.ID, RunPassed, 0, time.Now(), tasks, 0, tasks); err != nil {
			b.Fatal(err)
		}
	}
	record := func(cache string, runs int) {
		var rs []*Run
		var execs []Execution
		for range runs {
			r := begin()
			rs = append(rs, r)
			execs = append(execs, execsOf(r, cache)...)
		}
		if err := s.RecordExecutions(ctx, execs); err != nil {
			b.Fatal(err)
		}
		for _, r := range rs {
			finish(r)
		}
	}
	record(CacheMiss, 1)
	for done := 1; done < prior; done += 10 {
		record(CacheHit, min(10, prior-done))
	}
	cpu := cpuTime()
	for b.Loop() {
		record(CacheHit, 1)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}
