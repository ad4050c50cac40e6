package history

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// The benchmarks share one seeded history of benchRuns runs and
// benchRuns*benchExecsPerRun executions, built once per test binary, or
// kept at $VX_HISTORY_BENCH_DB (seeded when missing) to skip the seeding
// between benchmark runs.
const (
	benchRuns        = 10000
	benchExecsPerRun = 10
	benchProjects    = 50
	benchTaskNames   = 4
)

var (
	benchOnce sync.Once
	benchDir  string
	benchPath string
	benchErr  error
)

func seedBench(b *testing.B) *Store {
	b.Helper()
	benchOnce.Do(func() {
		ctx := context.Background()
		if benchPath = os.Getenv("VX_HISTORY_BENCH_DB"); benchPath != "" {
			if _, err := os.Stat(benchPath); err == nil {
				return
			}
		} else {
			if benchDir, benchErr = os.MkdirTemp("", "vx-history-bench"); benchErr != nil {
				return
			}
			benchPath = Path(benchDir)
		}
		s, err := Open(ctx, benchPath, nil)
		if err != nil {
			benchErr = err
			return
		}
		defer s.Close()
		names := []string{"build", "test", "lint", "typecheck"}
		statuses := []string{StatusPassed, StatusPassed, StatusPassed, StatusPassed, StatusPassed, StatusPassed, StatusFailed, StatusBlocked, StatusTimedOut, StatusPassed}
		caches := []string{CacheHit, CacheMiss, CacheHit, CacheHit, CacheMiss, CacheOff}
		start := time.Now().Add(-benchRuns * time.Minute)
		for i := 0; i < benchRuns; i++ {
			r := &Run{Command: "vx run build test", StartedAt: start.Add(time.Duration(i) * time.Minute)}
			if benchErr = s.BeginRun(ctx, r); benchErr != nil {
				return
			}
			execs := make([]Execution, benchExecsPerRun)
			for j := range execs {
				n := i*benchExecsPerRun + j
				project := fmt.Sprintf("pkg%02d", n%benchProjects)
				task := names[(n/benchProjects)%benchTaskNames]
				st := statuses[(n/7+i)%len(statuses)]
				var out []byte
				if st == StatusFailed {
					out = []byte("FAIL src/index.test.ts:12:3 expected 1 to be 2\n")
				}
				execs[j] = Execution{RunID: r.ID, TaskID: project + "#" + task, Project: project, Task: task,
					Key: fmt.Sprintf("%016x", n%3000), Status: st, Cache: caches[(n/11+i)%len(caches)], StartedAt: r.StartedAt,
					DurationMs: int64(100 + (n*7919)%900), PeakRSSBytes: int64(n%50) << 20, CPUParallelism: float64(n%7) / 2, Output: out}
			}
			if benchErr = s.RecordExecutions(ctx, execs); benchErr != nil {
				return
			}
			if benchErr = s.FinishRun(ctx, r.ID, RunPassed, 0, r.StartedAt.Add(30*time.Second), benchExecsPerRun, 1, 4); benchErr != nil {
				return
			}
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	s, err := OpenReadOnly(context.Background(), benchPath, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, n, err := s.Counts(context.Background()); err != nil || n != benchRuns*benchExecsPerRun {
		b.Fatalf("seeded %d executions, %v", n, err)
	}
	return s
}

func BenchmarkTaskStats(b *testing.B) {
	s := seedBench(b)
	ctx := context.Background()
	for _, f := range []Filter{{}, {Project: "pkg07"}, {Project: "pkg07", Task: "test"}} {
		b.Run(fmt.Sprintf("project=%q,task=%q", f.Project, f.Task), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.TaskStats(ctx, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRecentExecutions(b *testing.B) {
	s := seedBench(b)
	ctx := context.Background()
	for _, f := range []Filter{{Limit: 50}, {Project: "pkg07", Limit: 500}, {Task: "lint", Limit: 100}} {
		b.Run(fmt.Sprintf("project=%q,task=%q,limit=%d", f.Project, f.Task, f.Limit), func(b *testing.B) {
			for b.Loop() {
				if _, err := s.RecentExecutions(ctx, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPreviousExecution(b *testing.B) {
	s := seedBench(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.PreviousExecution(ctx, "pkg07#test", benchRuns/2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReaders(b *testing.B) {
	s := seedBench(b)
	ctx := context.Background()
	latest, err := s.LatestRun(ctx)
	if err != nil {
		b.Fatal(err)
	}
	ids := []string{}
	for p := 0; p < benchProjects; p++ {
		ids = append(ids, fmt.Sprintf("pkg%02d#build", p), fmt.Sprintf("pkg%02d#test", p))
	}
	cases := []struct {
		name string
		fn   func() error
	}{
		{"ResolveRun", func() error { _, err := s.ResolveRun(ctx, latest.ID[:6]); return err }},
		{"Executions", func() error { _, err := s.Executions(ctx, latest.ID); return err }},
		{"FlakyTasks", func() error { _, err := s.FlakyTasks(ctx); return err }},
		{"P50s100", func() error { _, err := s.P50s(ctx, ids); return err }},
		{"CacheActivity24h", func() error { _, _, _, err := s.CacheActivity(ctx, time.Now().Add(-24*time.Hour), ""); return err }},
		{"CacheActivity24hProject", func() error {
			_, _, _, err := s.CacheActivity(ctx, time.Now().Add(-24*time.Hour), "pkg07")
			return err
		}},
		{"TrendsHour24", func() error { _, err := s.Trends(ctx, "hour", 24); return err }},
		{"TrendsDay7", func() error { _, err := s.Trends(ctx, "day", 7); return err }},
		{"Counts", func() error { _, _, err := s.Counts(ctx); return err }},
		{"ListRuns50", func() error { _, err := s.ListRuns(ctx, 50, 0); return err }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.fn(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecordRun measures one run of ten executions: BeginRun,
// RecordExecutions and FinishRun, three write transactions.
func BenchmarkRecordRun(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, Path(b.TempDir()), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	i := 0
	for b.Loop() {
		r := &Run{Command: "vx run build", StartedAt: time.Now()}
		if err := s.BeginRun(ctx, r); err != nil {
			b.Fatal(err)
		}
		execs := make([]Execution, 10)
		for j := range execs {
			i++
			execs[j] = Execution{RunID: r.ID, TaskID: fmt.Sprintf("pkg%02d#build", j), Project: fmt.Sprintf("pkg%02d", j), Task: "build",
				Key: fmt.Sprintf("%016x", i), Status: StatusPassed, Cache: CacheMiss, StartedAt: r.StartedAt, DurationMs: 100}
		}
		if err := s.RecordExecutions(ctx, execs); err != nil {
			b.Fatal(err)
		}
		if err := s.FinishRun(ctx, r.ID, RunPassed, 0, time.Now(), 10, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}
