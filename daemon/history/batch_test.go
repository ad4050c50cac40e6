package history

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// The batched write must leave the history exactly as recording the same
// executions one call at a time: stats (counts, percentiles, last status),
// flaky keys found within one batch and across batches, execution ids in
// order, and the runs' counts. The batch crosses batchRows chunks and
// holds two runs and repeated tasks.
func TestRecordBatchMatchesOneByOne(t *testing.T) {
	ctx := context.Background()
	zero, one := 0, 1
	build := func(runA, runB string) []Execution {
		var execs []Execution
		for i := 0; i < batchRows+37; i++ {
			id := fmt.Sprintf("pkg-%03d#build", i%150) // tasks repeat across chunks
			e := Execution{RunID: runA, TaskID: id, Key: fmt.Sprintf("k%d", i%150), Status: StatusPassed, Cache: CacheMiss,
				ExitCode: &zero, DurationMs: int64(10 + i), StartedAt: time.Unix(1700000000, int64(i))}
			switch {
			case i%7 == 0:
				e.Cache = CacheHit
			case i%11 == 0:
				e.Status, e.ExitCode = StatusFailed, &one // same key passed or will pass: flaky
				e.Output = []byte(fmt.Sprintf("error %d\n", i))
			case i%13 == 0:
				e.Status, e.Key, e.ExitCode, e.BlockedBy = StatusBlocked, "", nil, []string{"pkg-000#build"}
			case i%17 == 0:
				e.Status, e.TimedOut = StatusTimedOut, true
			case i%19 == 0:
				e.CacheSource = "remote"
				e.Cache = CacheHit
			case i%23 == 0:
				e.SandboxViolations = []wire.SandboxViolation{{Op: "write", Path: fmt.Sprintf("/tmp/x%d", i), Process: "sh", Pid: i}}
			}
			if i%2 == 1 {
				e.RunID = runB
			}
			execs = append(execs, e)
		}
		return execs
	}
	type state struct {
		Stats []TaskStat
		Flaky []string
		Execs [2][]Execution
		Runs  [2][2]int64 // executions, hits
	}
	record := func(t *testing.T, oneByOne bool) state {
		s, err := Open(ctx, Path(t.TempDir()), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var ids [2]string
		for i := range ids {
			r := &Run{ID: fmt.Sprintf("%012x", i+1), Command: "vx run build", StartedAt: time.Unix(1700000000+int64(i), 0)}
			if err := s.BeginRun(ctx, r); err != nil {
				t.Fatal(err)
			}
			ids[i] = r.ID
		}
		// A history before the batch: a failure of k3 and a pass of k5.
		prior := []Execution{
			{RunID: ids[0], TaskID: "pkg-003#build", Key: "k3", Status: StatusFailed, Cache: CacheMiss, ExitCode: &one, DurationMs: 5},
			{RunID: ids[0], TaskID: "pkg-005#build", Key: "k5", Status: StatusPassed, Cache: CacheMiss, ExitCode: &zero, DurationMs: 7},
		}
		execs := append(prior, build(ids[0], ids[1])...)
		if oneByOne {
			for i := range execs {
				if err := s.RecordExecutions(ctx, execs[i:i+1]); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			if err := s.RecordExecutions(ctx, execs[:2]); err != nil {
				t.Fatal(err)
			}
			if err := s.RecordExecutions(ctx, execs[2:]); err != nil {
				t.Fatal(err)
			}
		}
		var st state
		if st.Stats, err = s.TaskStats(ctx, Filter{}); err != nil {
			t.Fatal(err)
		}
		if st.Flaky, err = s.FlakyTasks(ctx); err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			if st.Execs[i], err = s.Executions(ctx, id); err != nil {
				t.Fatal(err)
			}
			if err := s.w.QueryRowContext(ctx, `SELECT executions, hits FROM runs WHERE id = ?`, id).Scan(&st.Runs[i][0], &st.Runs[i][1]); err != nil {
				t.Fatal(err)
			}
		}
		return st
	}
	want := record(t, true)
	got := record(t, false)
	if len(want.Flaky) == 0 || len(want.Stats) != 150 || len(want.Execs[0])+len(want.Execs[1]) != batchRows+37+2 {
		t.Fatalf("the fixture is not what the test needs: %d flaky, %d stats, %d+%d executions",
			len(want.Flaky), len(want.Stats), len(want.Execs[0]), len(want.Execs[1]))
	}
	if !reflect.DeepEqual(got.Flaky, want.Flaky) {
		t.Errorf("flaky tasks: batched %v, one by one %v", got.Flaky, want.Flaky)
	}
	if !reflect.DeepEqual(got.Stats, want.Stats) {
		for i := range want.Stats {
			if i < len(got.Stats) && !reflect.DeepEqual(got.Stats[i], want.Stats[i]) {
				t.Errorf("stats of %s: batched %+v\none by one %+v", want.Stats[i].TaskID, got.Stats[i], want.Stats[i])
				break
			}
		}
		t.Errorf("stats differ (%d batched, %d one by one)", len(got.Stats), len(want.Stats))
	}
	for i := range want.Execs {
		if !reflect.DeepEqual(got.Execs[i], want.Execs[i]) {
			t.Errorf("executions of run %d differ", i)
		}
		if got.Runs[i] != want.Runs[i] {
			t.Errorf("run %d executions/hits: batched %v, one by one %v", i, got.Runs[i], want.Runs[i])
		}
	}
}
