package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// writerEnv switches the test binary into a child process that writes runs
// to the database it names (see TestConcurrentProcesses).
const writerEnv = "VX_HISTORY_TEST_WRITER"

func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		tag := os.Getenv(writerEnv + "_TAG")
		if err := writeRuns(context.Background(), path, tag, 25, 4); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// writeRuns opens its own Store and records n runs of k executions each.
func writeRuns(ctx context.Context, path, tag string, n, k int) error {
	s, err := Open(ctx, path, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	for i := 0; i < n; i++ {
		r := &Run{Command: "vx run " + tag, StartedAt: time.Now()}
		if err := s.BeginRun(ctx, r); err != nil {
			return err
		}
		execs := make([]Execution, k)
		for j := range execs {
			execs[j] = Execution{RunID: r.ID, TaskID: fmt.Sprintf("%s#t%d", tag, j), Project: tag, Task: fmt.Sprintf("t%d", j),
				Key: fmt.Sprintf("%s-%d-%d", tag, i, j), Status: StatusPassed, Cache: CacheMiss, StartedAt: time.Now(), DurationMs: int64(j)}
		}
		if err := s.RecordExecutions(ctx, execs); err != nil {
			return err
		}
		if err := s.FinishRun(ctx, r.ID, RunPassed, 0, time.Now(), k, 0, 0); err != nil {
			return err
		}
	}
	return nil
}

func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := Path(t.TempDir())
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func intp(i int) *int { return &i }

var t0 = time.Date(2026, 3, 14, 9, 30, 0, 123456789, time.Local)

// addRun begins, records and finishes one run.
func addRun(t testing.TB, s *Store, id string, started time.Time, status string, execs ...Execution) *Run {
	t.Helper()
	ctx := context.Background()
	r := &Run{ID: id, Command: "vx run test", StartedAt: started}
	if err := s.BeginRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	failed, cached := 0, 0
	for i := range execs {
		execs[i].RunID = r.ID
		if execs[i].Project == "" {
			execs[i].Project, execs[i].Task, _ = strings.Cut(execs[i].TaskID, "#")
		}
		if execs[i].Cache == "" {
			execs[i].Cache = CacheMiss
		}
		if execs[i].StartedAt.IsZero() {
			execs[i].StartedAt = started
		}
		if execs[i].Status == StatusFailed {
			failed++
		}
		if execs[i].Cache == CacheHit {
			cached++
		}
	}
	if err := s.RecordExecutions(ctx, execs); err != nil {
		t.Fatal(err)
	}
	if status != RunRunning {
		if err := s.FinishRun(ctx, r.ID, status, boolInt(status != RunPassed), started.Add(2*time.Second), len(execs), failed, cached); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.ResolveRun(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// utc normalises times so that values read back compare with DeepEqual.
func utcRun(r Run) Run {
	r.StartedAt = r.StartedAt.UTC()
	if r.EndedAt != nil {
		e := r.EndedAt.UTC()
		r.EndedAt = &e
	}
	return r
}

func utcExec(e Execution) Execution {
	e.StartedAt = e.StartedAt.UTC()
	return e
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)

	ended := t0.Add(90 * time.Second)
	run := &Run{Command: "vx run test --filter ***", Args: []string{"test", "--filter", "***"}, StartedAt: t0,
		GitBranch: "main", GitCommit: "0123abcd", CI: true}
	if err := s.BeginRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if !validRunID(run.ID) || run.Seq != 1 || run.Status != RunRunning {
		t.Fatalf("BeginRun set id %q seq %d status %q", run.ID, run.Seq, run.Status)
	}
	execs := []Execution{
		{RunID: run.ID, TaskID: "web#build", Project: "web", Task: "build", Key: "k-build", Status: StatusPassed,
			Cache: CacheHit, ExitCode: intp(0), StartedAt: t0.Add(time.Second), DurationMs: 12, PeakRSSBytes: 1 << 20, CPUParallelism: 1.5},
		{RunID: run.ID, TaskID: "web#test", Project: "web", Task: "test", Key: "k-test", Status: StatusFailed,
			Cache: CacheMiss, ExitCode: intp(2), StartedAt: t0.Add(2 * time.Second), DurationMs: 3400, PeakRSSBytes: 7 << 20,
			CPUParallelism: 3.25, Reason: "exit 2", Output: []byte("FAIL src/a.test.ts:3:7\n"), OutputTruncated: true},
		{RunID: run.ID, TaskID: "web#deploy", Project: "web", Task: "deploy", Status: StatusBlocked, Cache: CacheOff,
			StartedAt: t0.Add(3 * time.Second), BlockedBy: []string{"web#test"}, Reason: "blocked by web#test"},
		{RunID: run.ID, TaskID: "api#serve", Project: "api", Task: "serve", Key: "k-serve", Status: StatusTimedOut,
			Cache: CacheMiss, StartedAt: t0.Add(4 * time.Second), DurationMs: 60000, TimedOut: true},
	}
	if err := s.RecordExecutions(ctx, execs); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, run.ID, RunFailed, 1, ended, 4, 2, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.PutComponents(ctx, "k-test", []byte(`{"files":{"src/a.ts":"h1"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutComponents(ctx, "k-test", []byte(`other`)); err != nil {
		t.Fatal(err)
	}

	want := *run
	want.EndedAt, want.Status, want.ExitCode = &ended, RunFailed, intp(1)
	want.Tasks, want.Failed, want.Cached, want.DurationMs = 4, 2, 1, 90000

	for _, ro := range []bool{false, true} {
		t.Run(fmt.Sprintf("readOnly=%v", ro), func(t *testing.T) {
			r := s
			if ro {
				var err error
				if r, err = OpenReadOnly(ctx, s.path, nil); err != nil {
					t.Fatal(err)
				}
				defer r.Close()
			}
			got, err := r.ResolveRun(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(utcRun(*got), utcRun(want)) {
				t.Errorf("run:\n got %+v\nwant %+v", utcRun(*got), utcRun(want))
			}
			for _, f := range []func(context.Context) (*Run, error){r.LatestRun, r.LatestFailedRun} {
				if got, err := f(ctx); err != nil || got.ID != run.ID {
					t.Errorf("latest run = %v, %v", got, err)
				}
			}
			list, err := r.ListRuns(ctx, 10, 0)
			if err != nil || len(list) != 1 || list[0].ID != run.ID {
				t.Errorf("ListRuns = %v, %v", list, err)
			}
			gotExecs, err := r.Executions(ctx, run.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(gotExecs) != len(execs) {
				t.Fatalf("got %d executions, want %d", len(gotExecs), len(execs))
			}
			for i := range execs {
				if !reflect.DeepEqual(utcExec(gotExecs[i]), utcExec(execs[i])) {
					t.Errorf("execution %d:\n got %+v\nwant %+v", i, utcExec(gotExecs[i]), utcExec(execs[i]))
				}
			}
			one, err := r.Execution(ctx, run.ID, "web#test")
			if err != nil || !bytes.Equal(one.Output, execs[1].Output) {
				t.Errorf("Execution = %+v, %v", one, err)
			}
			if _, err := r.Execution(ctx, run.ID, "web#nope"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Execution of unknown task: %v, want ErrNotFound", err)
			}
			latest, err := r.LatestExecution(ctx, "api#serve")
			if err != nil || latest.Status != StatusTimedOut {
				t.Errorf("LatestExecution = %+v, %v", latest, err)
			}
			blob, err := r.Components(ctx, "k-test")
			if err != nil || string(blob) != `{"files":{"src/a.ts":"h1"}}` {
				t.Errorf("Components = %q, %v (the first blob stored for a key stays)", blob, err)
			}
			if _, err := r.Components(ctx, "k-none"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Components of unknown key: %v, want ErrNotFound", err)
			}
			runs, n, err := r.Counts(ctx)
			if err != nil || runs != 1 || n != 4 {
				t.Errorf("Counts = %d, %d, %v", runs, n, err)
			}
			rows, err := r.RecentExecutions(ctx, Filter{Project: "web"})
			if err != nil || len(rows) != 3 || rows[0].TaskID != "web#deploy" || rows[0].RunSeq != 1 || !rows[0].RunStartedAt.Equal(t0) {
				t.Errorf("RecentExecutions(web) = %+v, %v", rows, err)
			}
			if rows[1].Output != nil || !rows[1].OutputTruncated {
				t.Errorf("RecentExecutions loads no output but keeps outputTruncated: %+v", rows[1])
			}
		})
	}
}

func TestWriteValidation(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	r := addRun(t, s, "", t0, RunRunning)
	tests := []struct {
		name string
		do   func() error
		want string
	}{
		{"bad run id", func() error { return s.BeginRun(ctx, &Run{ID: "XYZ", StartedAt: t0}) }, `"XYZ" is not 12 lowercase hex`},
		{"duplicate run id", func() error { return s.BeginRun(ctx, &Run{ID: r.ID, StartedAt: t0}) }, "already recorded"},
		{"bad run status", func() error { return s.FinishRun(ctx, r.ID, "ok", 0, t0, 0, 0, 0) }, `unknown run status "ok"`},
		{"unknown run finished", func() error { return s.FinishRun(ctx, "000000000000", RunPassed, 0, t0, 0, 0, 0) }, "not found"},
		{"bad exec status", func() error {
			return s.RecordExecutions(ctx, []Execution{{RunID: r.ID, TaskID: "a#b", Status: "ok", Cache: CacheMiss}})
		}, `unknown status "ok"`},
		{"bad cache", func() error {
			return s.RecordExecutions(ctx, []Execution{{RunID: r.ID, TaskID: "a#b", Status: StatusPassed, Cache: "warm"}})
		}, `unknown cache outcome "warm"`},
		{"unknown run", func() error {
			return s.RecordExecutions(ctx, []Execution{{RunID: "000000000000", TaskID: "a#b", Status: StatusPassed, Cache: CacheMiss}})
		}, "begin the run first"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	// A failed batch leaves nothing behind.
	err := s.RecordExecutions(ctx, []Execution{
		{RunID: r.ID, TaskID: "a#b", Status: StatusPassed, Cache: CacheMiss},
		{RunID: "000000000000", TaskID: "a#c", Status: StatusPassed, Cache: CacheMiss},
	})
	if err == nil {
		t.Fatal("batch with an unknown run recorded")
	}
	if _, n, _ := s.Counts(ctx); n != 0 {
		t.Errorf("a failed batch left %d executions", n)
	}
}

func TestResolveRun(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	for _, id := range []string{"abc000000001", "abc000000002", "abd000000000", "a9ffffffffff", "aa0000000000", "f00000000000"} {
		addRun(t, s, id, t0, RunPassed)
	}
	tests := []struct {
		name      string
		in        string
		want      string
		notFound  bool
		ambiguous []string
		empty     bool
	}{
		{name: "whole id", in: "abc000000002", want: "abc000000002"},
		{name: "unique prefix", in: "abd", want: "abd000000000"},
		{name: "upper case", in: "ABD0", want: "abd000000000"},
		{name: "prefix ending in 9", in: "a9", want: "a9ffffffffff"},
		{name: "prefix ending in f", in: "f", want: "f00000000000"},
		{name: "ambiguous", in: "abc", ambiguous: []string{"abc000000001", "abc000000002"}},
		{name: "ambiguous short", in: "a", ambiguous: []string{"a9ffffffffff", "aa0000000000", "abc000000001", "abc000000002", "abd000000000"}},
		{name: "unknown prefix", in: "0", notFound: true},
		{name: "unknown whole id", in: "abc000000003", notFound: true},
		{name: "not hex", in: "xyz", notFound: true},
		{name: "too long", in: "abc0000000010", notFound: true},
		{name: "empty", in: "", empty: true},
		{name: "blank", in: "  ", empty: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := s.ResolveRun(ctx, tc.in)
			var amb *AmbiguousError
			switch {
			case tc.want != "":
				if err != nil || r.ID != tc.want {
					t.Errorf("ResolveRun(%q) = %v, %v; want %s", tc.in, r, err, tc.want)
				}
			case tc.notFound:
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("ResolveRun(%q) error = %v, want ErrNotFound", tc.in, err)
				}
			case tc.ambiguous != nil:
				if !errors.As(err, &amb) || !slices.Equal(amb.Matches, tc.ambiguous) {
					t.Errorf("ResolveRun(%q) error = %v, want ambiguous %v", tc.in, err, tc.ambiguous)
				}
			case tc.empty:
				if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "empty") {
					t.Errorf("ResolveRun(%q) error = %v, want a refusal of the empty id", tc.in, err)
				}
			}
		})
	}
}

func TestRunOrder(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	var runs []*Run
	for i := 0; i < 5; i++ {
		status := RunPassed
		if i == 1 || i == 3 {
			status = RunFailed
		}
		runs = append(runs, addRun(t, s, "", t0.Add(time.Duration(i)*time.Minute), status))
	}
	latest, _ := s.LatestRun(ctx)
	failed, _ := s.LatestFailedRun(ctx)
	prev, _ := s.PreviousRun(ctx, runs[3])
	if latest.ID != runs[4].ID || failed.ID != runs[3].ID || prev.ID != runs[2].ID {
		t.Errorf("latest %s, latest failed %s, before #4 %s", latest.ID, failed.ID, prev.ID)
	}
	if _, err := s.PreviousRun(ctx, runs[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("PreviousRun of the first run: %v, want ErrNotFound", err)
	}
	page, err := s.ListRuns(ctx, 2, runs[3].Seq)
	if err != nil || len(page) != 2 || page[0].ID != runs[2].ID || page[1].ID != runs[1].ID {
		t.Errorf("ListRuns(2, before #4) = %v, %v", page, err)
	}
}

func TestTaskStats(t *testing.T) {
	type ex = Execution
	durations := func(n int) []ex {
		var out []ex
		for i := 1; i <= n; i++ {
			out = append(out, ex{TaskID: "web#build", Key: fmt.Sprintf("k%d", i), Status: StatusPassed, DurationMs: int64(i)})
		}
		return out
	}
	tests := []struct {
		name  string
		execs []ex // one run each, in order
		check func(t *testing.T, st TaskStat)
	}{
		{"percentiles over executed runs only", append(durations(100),
			ex{TaskID: "web#build", Key: "k1", Status: StatusPassed, Cache: CacheHit, DurationMs: 100000},
			ex{TaskID: "web#build", Status: StatusBlocked, DurationMs: 100000},
			ex{TaskID: "web#build", Key: "kx", Status: statusInterrupted, DurationMs: 100000},
		), func(t *testing.T, st TaskStat) {
			if st.P50Ms != 50 || st.P99Ms != 99 || st.Count != 103 || st.Executed != 100 {
				t.Errorf("p50 %d p99 %d count %d executed %d; want 50 99 103 100", st.P50Ms, st.P99Ms, st.Count, st.Executed)
			}
		}},
		{"percentiles of few", []ex{
			{TaskID: "web#build", Key: "a", Status: StatusPassed, DurationMs: 10},
			{TaskID: "web#build", Key: "b", Status: StatusFailed, DurationMs: 30},
			{TaskID: "web#build", Key: "c", Status: StatusPassed, Cache: CacheOff, DurationMs: 20},
		}, func(t *testing.T, st TaskStat) {
			if st.P50Ms != 20 || st.P99Ms != 30 {
				t.Errorf("p50 %d p99 %d; want 20 30", st.P50Ms, st.P99Ms)
			}
		}},
		{"success rate", []ex{
			{TaskID: "web#build", Key: "a", Status: StatusPassed},
			{TaskID: "web#build", Key: "b", Status: StatusPassed},
			{TaskID: "web#build", Key: "c", Status: StatusFailed},
			{TaskID: "web#build", Key: "d", Status: StatusTimedOut, TimedOut: true},
			{TaskID: "web#build", Status: StatusBlocked},
			{TaskID: "web#build", Status: statusSkipped},
		}, func(t *testing.T, st TaskStat) {
			if st.Attempts != 4 || st.SuccessRate != 0.5 {
				t.Errorf("attempts %d success rate %v; want 4 0.5", st.Attempts, st.SuccessRate)
			}
		}},
		{"hit rate ignores cache off", []ex{
			{TaskID: "web#build", Key: "a", Status: StatusPassed, Cache: CacheHit},
			{TaskID: "web#build", Key: "a", Status: StatusPassed, Cache: CacheHit},
			{TaskID: "web#build", Key: "a", Status: StatusPassed, Cache: CacheHit},
			{TaskID: "web#build", Key: "b", Status: StatusPassed, Cache: CacheMiss},
			{TaskID: "web#build", Key: "c", Status: StatusPassed, Cache: CacheOff},
		}, func(t *testing.T, st TaskStat) {
			if st.Hits != 3 || st.Cacheable != 4 || st.HitRate != 0.75 {
				t.Errorf("hits %d cacheable %d hit rate %v; want 3 4 0.75", st.Hits, st.Cacheable, st.HitRate)
			}
		}},
		{"flaky: same key passed and failed", []ex{
			{TaskID: "web#build", Key: "k1", Status: StatusPassed},
			{TaskID: "web#build", Key: "k1", Status: StatusFailed},
			{TaskID: "web#build", Key: "k1", Status: StatusFailed},
		}, func(t *testing.T, st TaskStat) {
			if !st.Flaky || st.FlakyKeys != 1 {
				t.Errorf("flaky %v keys %d; want true 1", st.Flaky, st.FlakyKeys)
			}
		}},
		{"flaky: failure first, then pass of the same key", []ex{
			{TaskID: "web#build", Key: "k1", Status: StatusTimedOut},
			{TaskID: "web#build", Key: "k1", Status: StatusPassed},
			{TaskID: "web#build", Key: "k2", Status: StatusFailed},
			{TaskID: "web#build", Key: "k2", Status: StatusPassed},
		}, func(t *testing.T, st TaskStat) {
			if !st.Flaky || st.FlakyKeys != 2 {
				t.Errorf("flaky %v keys %d; want true 2", st.Flaky, st.FlakyKeys)
			}
		}},
		{"not flaky: a key failed, another key passed", []ex{
			{TaskID: "web#build", Key: "k1", Status: StatusFailed},
			{TaskID: "web#build", Key: "k2", Status: StatusPassed},
			{TaskID: "web#build", Key: "k2", Status: StatusPassed, Cache: CacheHit},
		}, func(t *testing.T, st TaskStat) {
			if st.Flaky || st.FlakyKeys != 0 {
				t.Errorf("flaky %v keys %d; want false 0", st.Flaky, st.FlakyKeys)
			}
		}},
		{"not flaky: blocked and passed with the same key", []ex{
			{TaskID: "web#build", Key: "k1", Status: StatusBlocked},
			{TaskID: "web#build", Key: "k1", Status: statusInterrupted},
			{TaskID: "web#build", Key: "k1", Status: StatusPassed},
		}, func(t *testing.T, st TaskStat) {
			if st.Flaky {
				t.Errorf("flaky; want not flaky")
			}
		}},
		{"failure mode", []ex{
			{TaskID: "web#build", Status: StatusBlocked},
			{TaskID: "web#build", Status: StatusBlocked},
			{TaskID: "web#build", Key: "a", Status: StatusFailed},
			{TaskID: "web#build", Key: "b", Status: StatusPassed},
			{TaskID: "web#build", Key: "b", Status: StatusPassed},
			{TaskID: "web#build", Key: "b", Status: StatusPassed},
		}, func(t *testing.T, st TaskStat) {
			if st.FailureMode != StatusBlocked || st.FailureCount != 2 {
				t.Errorf("failure mode %q×%d; want blocked×2", st.FailureMode, st.FailureCount)
			}
		}},
		{"no failure mode", []ex{
			{TaskID: "web#build", Key: "b", Status: StatusPassed},
			{TaskID: "web#build", Status: statusSkipped},
		}, func(t *testing.T, st TaskStat) {
			if st.FailureMode != "" || st.FailureCount != 0 || st.SuccessRate != 1 {
				t.Errorf("failure mode %q×%d success %v; want none and 1", st.FailureMode, st.FailureCount, st.SuccessRate)
			}
		}},
		{"maxima and last", []ex{
			{TaskID: "web#build", Key: "a", Status: StatusPassed, PeakRSSBytes: 300, CPUParallelism: 1.5},
			{TaskID: "web#build", Key: "b", Status: StatusPassed, PeakRSSBytes: 900, CPUParallelism: 0.5},
			{TaskID: "web#build", Key: "c", Status: StatusTimedOut, PeakRSSBytes: 100, CPUParallelism: 3.5},
		}, func(t *testing.T, st TaskStat) {
			if st.MaxPeakRSSBytes != 900 || st.MaxCPUParallelism != 3.5 || st.LastStatus != StatusTimedOut {
				t.Errorf("max rss %d cpu %v last %q; want 900 3.5 timedOut", st.MaxPeakRSSBytes, st.MaxCPUParallelism, st.LastStatus)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := openTemp(t)
			var last *Run
			for i, e := range tc.execs {
				last = addRun(t, s, "", t0.Add(time.Duration(i)*time.Second), RunPassed, e)
			}
			// Another task so that the filter matters.
			addRun(t, s, "", t0, RunFailed, Execution{TaskID: "api#build", Key: "k1", Status: StatusFailed})
			stats, err := s.TaskStats(ctx, Filter{Project: "web"})
			if err != nil || len(stats) != 1 || stats[0].TaskID != "web#build" {
				t.Fatalf("TaskStats(web) = %+v, %v", stats, err)
			}
			if stats[0].LastRunID != last.ID {
				t.Errorf("last run %s, want %s", stats[0].LastRunID, last.ID)
			}
			tc.check(t, stats[0])

			flaky, err := s.FlakyTasks(ctx)
			if err != nil || slices.Contains(flaky, "web#build") != stats[0].Flaky || slices.Contains(flaky, "api#build") {
				t.Errorf("FlakyTasks = %v, %v; stats say flaky=%v", flaky, err, stats[0].Flaky)
			}
			p50s, err := s.P50s(ctx, []string{"web#build", "nope#build"})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := p50s["nope#build"]; ok {
				t.Errorf("P50s has a task that never ran: %v", p50s)
			}
			if stats[0].Executed > 0 && p50s["web#build"] != stats[0].P50Ms {
				t.Errorf("P50s = %v, TaskStats p50 %d", p50s, stats[0].P50Ms)
			}
		})
	}
}

func TestTaskStatsFilters(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	addRun(t, s, "", t0, RunPassed,
		Execution{TaskID: "web#build", Key: "1", Status: StatusPassed},
		Execution{TaskID: "web#test", Key: "2", Status: StatusPassed},
		Execution{TaskID: "api#build", Key: "3", Status: StatusPassed},
	)
	tests := []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"api#build", "web#build", "web#test"}},
		{Filter{Project: "web"}, []string{"web#build", "web#test"}},
		{Filter{Task: "build"}, []string{"api#build", "web#build"}},
		{Filter{Project: "web", Task: "test"}, []string{"web#test"}},
		{Filter{Limit: 1}, []string{"api#build"}},
		{Filter{Project: "nope"}, nil},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%+v", tc.f), func(t *testing.T) {
			stats, err := s.TaskStats(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, st := range stats {
				ids = append(ids, st.TaskID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("TaskStats = %v, want %v", ids, tc.want)
			}
			rows, err := s.RecentExecutions(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			ids = ids[:0]
			for _, r := range rows {
				ids = append(ids, r.TaskID)
			}
			slices.Sort(ids)
			if !slices.Equal(ids, tc.want) {
				t.Errorf("RecentExecutions = %v, want %v", ids, tc.want)
			}
		})
	}
}

func TestPreviousExecution(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	r1 := addRun(t, s, "", t0, RunPassed, Execution{TaskID: "web#test", Key: "k1", Status: StatusPassed})
	r2 := addRun(t, s, "", t0.Add(time.Minute), RunFailed, Execution{TaskID: "web#test", Status: StatusBlocked, BlockedBy: []string{"web#build"}})
	r3 := addRun(t, s, "", t0.Add(2*time.Minute), RunInterrupted, Execution{TaskID: "web#test", Key: "k3", Status: statusInterrupted})
	r4 := addRun(t, s, "", t0.Add(3*time.Minute), RunPassed, Execution{TaskID: "web#test", Status: statusSkipped})
	r5 := addRun(t, s, "", t0.Add(4*time.Minute), RunPassed, Execution{TaskID: "web#test", Key: "k5", Status: StatusPassed})
	only := addRun(t, s, "", t0.Add(5*time.Minute), RunFailed, Execution{TaskID: "api#test", Status: StatusBlocked})

	tests := []struct {
		name   string
		task   string
		before int64
		want   string // run id, "" for not found
	}{
		{"skips blocked, interrupted and skipped", "web#test", r5.Seq, r1.ID},
		{"before a blocked run", "web#test", r2.Seq, r1.ID},
		{"nothing earlier", "web#test", r1.Seq, ""},
		{"latest of all", "web#test", 0, r5.ID},
		{"falls back to a blocked row", "api#test", only.Seq + 1, only.ID},
		{"unknown task", "nope#test", 0, ""},
	}
	_, _ = r3, r4
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := s.PreviousExecution(ctx, tc.task, tc.before)
			if tc.want == "" {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("PreviousExecution = %+v, %v; want ErrNotFound", e, err)
				}
				return
			}
			if err != nil || e.RunID != tc.want {
				t.Errorf("PreviousExecution = %+v, %v; want run %s", e, err, tc.want)
			}
		})
	}
}

func TestCacheActivityAndTrends(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	day1 := time.Date(2026, 3, 13, 10, 15, 0, 0, time.Local)
	day2 := time.Date(2026, 3, 14, 10, 5, 0, 0, time.Local)
	hit := func(id string) Execution {
		return Execution{TaskID: id, Key: "k", Status: StatusPassed, Cache: CacheHit}
	}
	miss := func(id string) Execution {
		return Execution{TaskID: id, Key: "m", Status: StatusPassed, Cache: CacheMiss}
	}
	addRun(t, s, "", day1, RunPassed, hit("web#build"), miss("api#build"))
	addRun(t, s, "", day2, RunFailed, hit("web#build"), hit("api#build"), miss("api#test"))
	addRun(t, s, "", day2.Add(20*time.Minute), RunPassed, hit("web#build"))
	addRun(t, s, "", day2.Add(70*time.Minute), RunRunning, miss("web#test"))

	tests := []struct {
		since             time.Time
		project           string
		runs, execs, hits int
	}{
		{day1, "", 4, 7, 4},
		{day2, "", 3, 5, 3},
		{day2, "api", 1, 2, 1},
		{day2, "web", 3, 3, 2},
		{day2.Add(24 * time.Hour), "", 0, 0, 0},
	}
	for _, tc := range tests {
		runs, execs, hits, err := s.CacheActivity(ctx, tc.since, tc.project)
		if err != nil || runs != tc.runs || execs != tc.execs || hits != tc.hits {
			t.Errorf("CacheActivity(%v, %q) = %d, %d, %d, %v; want %d, %d, %d",
				tc.since, tc.project, runs, execs, hits, err, tc.runs, tc.execs, tc.hits)
		}
	}

	days, err := s.Trends(ctx, "day", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Bucket{
		{Start: time.Date(2026, 3, 14, 0, 0, 0, 0, time.Local), Runs: 3, FailedRuns: 1, Executions: 5, Hits: 3, P50DurationMs: 2000},
		{Start: time.Date(2026, 3, 13, 0, 0, 0, 0, time.Local), Runs: 1, Executions: 2, Hits: 1, P50DurationMs: 2000},
	}
	if len(days) != 2 || !days[0].Start.Equal(want[0].Start) || !days[1].Start.Equal(want[1].Start) {
		t.Fatalf("Trends(day) = %+v, want %+v", days, want)
	}
	for i := range want {
		days[i].Start = want[i].Start
	}
	if !reflect.DeepEqual(days, want) {
		t.Errorf("Trends(day) = %+v, want %+v", days, want)
	}
	hours, err := s.Trends(ctx, "hour", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(hours) != 2 || hours[0].Runs != 1 || hours[1].Runs != 2 || hours[1].FailedRuns != 1 ||
		!hours[1].Start.Equal(day2.Truncate(time.Hour)) {
		t.Errorf("Trends(hour, 2) = %+v", hours)
	}
	if _, err := s.Trends(ctx, "week", 1); err == nil {
		t.Error("Trends(week) accepted")
	}
}

func TestOpenReadOnlyMissingCreatesNothing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	path := Path(root)
	s, err := OpenReadOnly(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	readAll(t, s, "000000000000")
	if _, err := s.LatestRun(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("LatestRun on no history: %v, want ErrNotFound", err)
	}
	if err := s.BeginRun(ctx, &Run{StartedAt: t0}); !errors.Is(err, errReadOnly) {
		t.Errorf("BeginRun on a read-only store: %v, want errReadOnly", err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("read-only open of a missing history left %v in the workspace", entries)
	}

	// The first run creates the history; the open read-only store sees it.
	w, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := addRun(t, w, "", t0, RunPassed, Execution{TaskID: "web#build", Key: "k", Status: StatusPassed})
	if got, err := s.LatestRun(ctx); err != nil || got.ID != r.ID {
		t.Errorf("LatestRun after the first run = %v, %v", got, err)
	}
}

// readAll calls every reader and fails on any error but ErrNotFound.
func readAll(t *testing.T, s *Store, runID string) {
	t.Helper()
	ctx := context.Background()
	ok := func(what string, err error) {
		t.Helper()
		if err != nil && !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %v", what, err)
		}
	}
	_, err := s.ResolveRun(ctx, runID[:4])
	var amb *AmbiguousError
	if !errors.As(err, &amb) {
		ok("ResolveRun", err)
	}
	_, err = s.LatestRun(ctx)
	ok("LatestRun", err)
	_, err = s.LatestFailedRun(ctx)
	ok("LatestFailedRun", err)
	_, err = s.ListRuns(ctx, 10, 0)
	ok("ListRuns", err)
	_, err = s.PreviousRun(ctx, &Run{ID: runID, Seq: 1 << 40})
	ok("PreviousRun", err)
	_, err = s.Executions(ctx, runID)
	ok("Executions", err)
	_, err = s.Execution(ctx, runID, "web#build")
	ok("Execution", err)
	_, err = s.LatestExecution(ctx, "web#build")
	ok("LatestExecution", err)
	_, err = s.PreviousExecution(ctx, "web#build", 0)
	ok("PreviousExecution", err)
	_, err = s.RecentExecutions(ctx, Filter{})
	ok("RecentExecutions", err)
	_, err = s.TaskStats(ctx, Filter{})
	ok("TaskStats", err)
	_, err = s.FlakyTasks(ctx)
	ok("FlakyTasks", err)
	_, err = s.P50s(ctx, []string{"web#build"})
	ok("P50s", err)
	_, _, _, err = s.CacheActivity(ctx, time.Time{}, "")
	ok("CacheActivity", err)
	_, err = s.Trends(ctx, "day", 10)
	ok("Trends", err)
	_, _, err = s.Counts(ctx)
	ok("Counts", err)
	_, err = s.Components(ctx, "k")
	ok("Components", err)
}

func setUserVersion(t *testing.T, path string, v int) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		t.Fatal(err)
	}
}

func TestVersionMismatch(t *testing.T) {
	ctx := context.Background()
	for _, v := range []int{SchemaVersion + 1, 0} {
		t.Run(fmt.Sprintf("version %d", v), func(t *testing.T) {
			s, path := openTemp(t)
			addRun(t, s, "", t0, RunPassed, Execution{TaskID: "web#build", Key: "k", Status: StatusPassed})
			s.Close()
			setUserVersion(t, path, v)

			_, err := OpenReadOnly(ctx, path, nil)
			var ve *versionError
			if !errors.As(err, &ve) || ve.Path != path || ve.Found != v || ve.Want != SchemaVersion {
				t.Fatalf("OpenReadOnly = %v, want a *versionError for %s, %d", err, path, v)
			}
			for _, want := range []string{path, fmt.Sprintf("schema %d", v), fmt.Sprintf("schema %d", SchemaVersion), "another vx version", "next vx run"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			// Refused, and left as it was.
			raw, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := raw.QueryRow("SELECT count(*) FROM runs").Scan(&n); err != nil || n != 1 {
				t.Errorf("after a refused read the history holds %d runs, %v", n, err)
			}
			raw.Close()

			var logs bytes.Buffer
			w, err := Open(ctx, path, &Options{Logger: zerolog.New(&logs)})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if !strings.Contains(logs.String(), `"level":"warn"`) || !strings.Contains(logs.String(), "another vx version") {
				t.Errorf("reset logged %q, want a warning", logs.String())
			}
			if runs, _, err := w.Counts(ctx); err != nil || runs != 0 {
				t.Errorf("after the reset: %d runs, %v", runs, err)
			}
			r, err := OpenReadOnly(ctx, path, nil)
			if err != nil {
				t.Fatalf("OpenReadOnly after the reset: %v", err)
			}
			r.Close()
		})
	}
}

func TestReadsNeverDelete(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	var last *Run
	for i := 0; i < 30; i++ {
		last = addRun(t, s, "", t0.Add(-time.Duration(i)*24*time.Hour), RunPassed,
			Execution{TaskID: "web#build", Key: strconv.Itoa(i), Status: StatusPassed, Output: []byte("x")})
	}
	if err := s.PutComponents(ctx, "k", []byte("c")); err != nil {
		t.Fatal(err)
	}
	s.Close()

	r, err := OpenReadOnly(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, r, last.ID)
	r.Close()
	w, err := Open(ctx, path, nil) // reopening for writing keeps everything too
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	readAll(t, w, last.ID)
	runs, execs, err := w.Counts(ctx)
	if err != nil || runs != 30 || execs != 30 {
		t.Errorf("after reads: %d runs, %d executions, %v; want 30, 30", runs, execs, err)
	}
	if _, err := w.Components(ctx, "k"); err != nil {
		t.Errorf("components after reads: %v", err)
	}
}

func checkWriters(t *testing.T, path string, tags []string, runsEach, execsEach int) {
	t.Helper()
	ctx := context.Background()
	s, err := OpenReadOnly(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs, execs, err := s.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len(tags) * runsEach); runs != want {
		t.Errorf("%d runs recorded, want %d", runs, want)
	}
	if want := int64(len(tags) * runsEach * execsEach); execs != want {
		t.Errorf("%d executions recorded, want %d", execs, want)
	}
	list, err := s.ListRuns(ctx, MaxLimit, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range list {
		if want := int64(len(list) - i); r.Seq != want {
			t.Errorf("run %d has seq %d, want %d: seqs are unique and dense", i, r.Seq, want)
		}
		if r.Status != RunPassed {
			t.Errorf("run %s is %s, want passed", r.ID, r.Status)
		}
	}
	for _, tag := range tags {
		stats, err := s.TaskStats(ctx, Filter{Project: tag})
		if err != nil || len(stats) != execsEach {
			t.Fatalf("TaskStats(%s) = %d tasks, %v", tag, len(stats), err)
		}
		for _, st := range stats {
			if st.Count != runsEach {
				t.Errorf("%s counted %d executions, want %d", st.TaskID, st.Count, runsEach)
			}
		}
	}
}

func TestConcurrentStores(t *testing.T) {
	path := Path(t.TempDir())
	tags := []string{"a", "b", "c"}
	var wg sync.WaitGroup
	errs := make(chan error, len(tags))
	for _, tag := range tags {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- writeRuns(context.Background(), path, tag, 20, 5)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkWriters(t, path, tags, 20, 5)
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := Path(t.TempDir())
	tags := []string{"p1", "p2"}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for _, tag := range tags {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerEnv+"="+path, writerEnv+"_TAG="+tag)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %s: %v\n%s", tags[i], err, outs[i])
		}
	}
	checkWriters(t, path, tags, 25, 4)
	if entries, err := os.ReadDir(filepath.Dir(path)); err != nil || len(entries) == 0 {
		t.Errorf("history dir: %v, %v", entries, err)
	}
}

func TestRecordDerivesProjectAndTask(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	r := addRun(t, s, "", t0, RunRunning)
	err := s.RecordExecutions(ctx, []Execution{{RunID: r.ID, TaskID: "//#lint", Key: "k", Status: StatusPassed, Cache: CacheMiss, StartedAt: t0}})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.RecentExecutions(ctx, Filter{Project: "//", Task: "lint"})
	if err != nil || len(rows) != 1 || rows[0].Project != "//" || rows[0].Task != "lint" {
		t.Errorf("RecentExecutions(//, lint) = %+v, %v", rows, err)
	}
}
