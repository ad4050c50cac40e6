package history

import (
	"context"
	"testing"
	"time"
)

// TestPeakRSSIsTaskStats: PeakRSS answers what TaskStats says of each
// task's largest peak, leaving out tasks with none.
func TestPeakRSSIsTaskStats(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Path(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	zero := 0
	for i, peaks := range [][]int64{{100, 0, 7}, {50, 0, 9}} {
		r := &Run{Command: "vx run build", StartedAt: time.Now()}
		if err := s.BeginRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		var execs []Execution
		for j, p := range peaks {
			id := []string{"a#build", "b#build", "c#build"}[j]
			execs = append(execs, Execution{RunID: r.ID, TaskID: id, Project: id[:1], Task: "build", Key: "k", Status: StatusPassed,
				Cache: CacheMiss, ExitCode: &zero, StartedAt: r.StartedAt, DurationMs: int64(i), PeakRSSBytes: p})
		}
		if err := s.RecordExecutions(ctx, execs); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.PeakRSS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := s.TaskStats(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for _, st := range stats {
		if st.MaxPeakRSSBytes > 0 {
			want[st.TaskID] = st.MaxPeakRSSBytes
		}
	}
	if len(got) != 2 || got["a#build"] != 100 || got["c#build"] != 9 || len(want) != len(got) || want["a#build"] != got["a#build"] || want["c#build"] != got["c#build"] {
		t.Errorf("PeakRSS = %v, TaskStats say %v (want a#build 100, c#build 9)", got, want)
	}
}
