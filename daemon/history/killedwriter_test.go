package history

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// killedWriterEnv makes TestKilledWriterReaped's child: it records runs
// of cached hits into the history it names, batch after batch, until it
// is killed.
const killedWriterEnv = "VX_HISTORY_TEST_KILLED_WRITER"

func killedWriter(path string) error {
	ctx := context.Background()
	s, err := Open(ctx, path, nil)
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		r := &Run{Command: "vx run build", StartedAt: time.Now(), PID: os.Getpid(), ProcStart: ProcStart(os.Getpid())}
		if err := s.BeginRun(ctx, r); err != nil {
			return err
		}
		for b := 0; b < 4; b++ {
			var execs []Execution
			for j := 0; j < 50; j++ {
				execs = append(execs, Execution{RunID: r.ID, TaskID: fmt.Sprintf("p%03d#build", 50*b+j), Key: "k",
					Status: StatusPassed, Cache: CacheHit, ExitCode: intp(0), StartedAt: time.Now(), DurationMs: 1})
			}
			if err := s.RecordExecutions(ctx, execs); err != nil {
				return err
			}
			if i == 1 && b == 1 {
				fmt.Println("recording") // a finished run and half of the next
			}
		}
		if err := s.FinishRun(ctx, r.ID, RunPassed, 0, time.Now(), 200, 0, 200); err != nil {
			return err
		}
	}
}

// TestKilledWriterReaped: a vx killed with SIGKILL at any point of
// recording its hits leaves a history that reads whole; the next vx
// reaps the run, whose totals are the hits it recorded, and records on.
func TestKilledWriterReaped(t *testing.T) {
	if path := os.Getenv(killedWriterEnv); path != "" {
		if err := killedWriter(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	path := Path(t.TempDir())
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterReaped$", "-test.count=1")
	cmd.Env = append(os.Environ(), killedWriterEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "recording") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the writer did not start recording: %q, %v", line, err)
	}
	cmd.Process.Kill() // mid-way through whatever it records now
	cmd.Wait()
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if bad, err := s.Integrity(ctx); err != nil || len(bad) > 0 {
		t.Fatalf("Integrity after the kill = %v, %v", bad, err)
	}
	dead, err := s.ReapDeadRuns(ctx)
	if err != nil || len(dead) > 1 {
		t.Fatalf("ReapDeadRuns = %v, %v; want the killed run (none if killed between runs)", dead, err)
	}
	runs, err := s.ListRuns(ctx, MaxLimit, 0)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, r := range runs {
		execs, err := s.Executions(ctx, r.ID)
		if err != nil || len(execs) != r.Tasks || r.Cached != r.Tasks {
			t.Errorf("run %s (%s): %d executions (%v), %d tasks, %d cached; want as many of each", r.ID, r.Status, len(execs), err, r.Tasks, r.Cached)
		}
		if len(dead) == 1 && r.ID == dead[0] && (r.Status != RunInterrupted || r.Tasks%50 != 0) {
			t.Errorf("the killed run: %s with %d tasks; want interrupted with the batches it recorded", r.Status, r.Tasks)
		}
		if len(dead) == 1 && r.ID == dead[0] {
			t.Logf("the killed run had recorded %d hits", r.Tasks)
		}
		total += int64(len(execs))
	}
	// The next run records on, with the killed run's hits counted once.
	addRun(t, s, "", time.Now(), RunPassed, Execution{TaskID: "p000#build", Key: "k", Status: StatusPassed, Cache: CacheHit, ExitCode: intp(0), StartedAt: time.Now()})
	if _, n, err := s.Counts(ctx); err != nil || n != total+1 {
		t.Errorf("Counts = %d executions, %v; want %d", n, err, total+1)
	}
	stats, err := s.TaskStats(ctx, Filter{Task: "build"})
	if err != nil || len(stats) != 200 {
		t.Fatalf("TaskStats = %d tasks, %v", len(stats), err)
	}
	var counted int64
	for _, st := range stats {
		counted += int64(st.Count)
	}
	if counted != total+1 {
		t.Errorf("TaskStats count %d executions in all; want %d", counted, total+1)
	}
}
