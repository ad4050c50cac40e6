package history

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRecordHits is the history write of a fully cached run of 1,000
// tasks (docs/benchmarks.md): each iteration begins a run, records 1,000
// cache hits whose tasks already have statistics, and finishes the run.
//
//	go test ./daemon/history -run '^$' -bench RecordHits
func BenchmarkRecordHits(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, Path(b.TempDir()), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const tasks = 1000
	zero := 0
	record := func(cache string) {
		r := &Run{Command: "vx run build", StartedAt: time.Now()}
		if err := s.BeginRun(ctx, r); err != nil {
			b.Fatal(err)
		}
		execs := make([]Execution, tasks)
		for j := range execs {
			execs[j] = Execution{RunID: r.ID, TaskID: fmt.Sprintf("pkg-%04d#build", j), Project: fmt.Sprintf("pkg-%04d", j), Task: "build",
				Key: fmt.Sprintf("%032x", j), Status: StatusPassed, Cache: cache, ExitCode: &zero, StartedAt: r.StartedAt, DurationMs: 40}
		}
		if err := s.RecordExecutions(ctx, execs); err != nil {
			b.Fatal(err)
		}
		if err := s.FinishRun(ctx, r.ID, RunPassed, 0, time.Now(), tasks, 0, tasks); err != nil {
			b.Fatal(err)
		}
	}
	record(CacheMiss)
	cpu := cpuTime()
	for b.Loop() {
		record(CacheHit)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime is this process's user+system time: on a loaded machine the
// wall time of a benchmark mostly measures the wait for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
