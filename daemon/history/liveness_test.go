package history

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// deadPID is the pid of a process that has exited and been reaped: `true`
// where there is one, else (Windows) this test binary run to do nothing.
// Under qemu-user the test binary cannot be run again (no binfmt_misc).
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if p, err := exec.LookPath("true"); err == nil {
		cmd = exec.Command(p)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestReapDeadRuns: a running run whose process is gone, or whose pid now
// names a process started at another time (reused), is recorded as
// interrupted with its totals from its executions; a run whose process
// is alive, or whose process is unknown, is left running.
func TestReapDeadRuns(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	self := os.Getpid()
	begin := func(pid int, start int64) string {
		r := &Run{Command: "vx run build", StartedAt: time.Now().Add(-time.Minute), PID: pid, ProcStart: start}
		if err := s.BeginRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	alive := begin(0, 0) // BeginRun fills in this process
	gone := begin(deadPID(t), 12345)
	reused := begin(self, ProcStart(self)-1)
	if err := s.RecordExecutions(ctx, []Execution{
		{RunID: gone, TaskID: "web#build", Key: "k", Status: StatusPassed, Cache: CacheHit, StartedAt: time.Now().Add(-50 * time.Second), DurationMs: 1500},
		{RunID: gone, TaskID: "web#test", Key: "k2", Status: StatusFailed, Cache: CacheMiss, StartedAt: time.Now().Add(-40 * time.Second), DurationMs: 2000},
	}); err != nil {
		t.Fatal(err)
	}

	// Readers already answer what happened.
	for id, want := range map[string]string{alive: RunRunning, gone: RunInterrupted, reused: RunInterrupted} {
		r, err := s.ResolveRun(ctx, id)
		if err != nil || r.Status != want {
			t.Errorf("run %s reads as %v (err %v), want %s", id, r, err, want)
		}
	}
	dead, err := s.ReapDeadRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dead)
	want := []string{gone, reused}
	slices.Sort(want)
	if !slices.Equal(dead, want) {
		t.Errorf("ReapDeadRuns = %v, want %v", dead, want)
	}
	var status string
	var ended sql.NullInt64
	var exit sql.NullInt64
	var tasks, failed, cached int
	if err := s.w.QueryRowContext(ctx, `SELECT status, ended_at, exit_code, tasks, failed, cached FROM runs WHERE id = ?`, gone).
		Scan(&status, &ended, &exit, &tasks, &failed, &cached); err != nil {
		t.Fatal(err)
	}
	if status != RunInterrupted || !ended.Valid || exit.Valid || tasks != 2 || failed != 1 || cached != 1 {
		t.Errorf("reaped run: status %s ended %v exit %v tasks %d failed %d cached %d; want interrupted, an end, no exit code, 2/1/1",
			status, ended, exit, tasks, failed, cached)
	}
	if again, err := s.ReapDeadRuns(ctx); err != nil || len(again) != 0 {
		t.Errorf("a second ReapDeadRuns marked %v (err %v), want nothing", again, err)
	}
	r, err := s.ResolveRun(ctx, alive)
	if err != nil || r.Status != RunRunning {
		t.Errorf("the live run reads %v (err %v), want running", r, err)
	}
}

// TestMigrateFromSchema1: a history of schema 1 (no run process, a
// not_ready column, peaks that were vx's own memory) opens, keeps its
// runs and executions, and no longer carries the untrusted peaks.
func TestMigrateFromSchema1(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	addRun(t, s, "", t0, RunPassed, Execution{TaskID: "web#build", Key: "k", Status: StatusPassed, PeakRSSBytes: 19 << 20})
	s.Close()
	// Turn it back into schema 1.
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`ALTER TABLE runs DROP COLUMN pid`,
		`ALTER TABLE runs DROP COLUMN proc_start`,
		`ALTER TABLE executions ADD COLUMN not_ready INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE executions DROP COLUMN cache_source`,
		`ALTER TABLE executions DROP COLUMN sandbox_violations`,
		`ALTER TABLE runs DROP COLUMN remote_status`,
		`ALTER TABLE runs DROP COLUMN remote_hits`,
		`ALTER TABLE runs DROP COLUMN remote_rejected`,
		`ALTER TABLE runs DROP COLUMN remote_uploads`,
		`ALTER TABLE runs DROP COLUMN remote_upload_failures`,
		`ALTER TABLE runs DROP COLUMN remote_bytes_down`,
		`ALTER TABLE runs DROP COLUMN remote_bytes_up`,
		`PRAGMA user_version = 1`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()

	s, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("opening a schema 1 history: %v", err)
	}
	defer s.Close()
	ex, err := s.LatestExecution(ctx, "web#build")
	if err != nil {
		t.Fatalf("the execution recorded under schema 1: %v", err)
	}
	if ex.PeakRSSBytes != 0 {
		t.Errorf("peak recorded under schema 1 is %d after the migration, want 0 (no figure)", ex.PeakRSSBytes)
	}
	stats, err := s.TaskStats(ctx, Filter{Task: "build"})
	if err != nil || len(stats) != 1 || stats[0].MaxPeakRSSBytes != 0 {
		t.Errorf("task stats after the migration: %+v (err %v), want one with no peak", stats, err)
	}
	addRun(t, s, "", t0.Add(time.Hour), RunPassed, Execution{TaskID: "web#build", Key: "k", Status: StatusPassed, PeakRSSBytes: 64 << 20})
	stats, _ = s.TaskStats(ctx, Filter{Task: "build"})
	if len(stats) != 1 || stats[0].MaxPeakRSSBytes != 64<<20 {
		t.Errorf("task stats after a new run: %+v, want max peak 64 MiB", stats)
	}
}

// TestReapAt: vxd's start records dead runs of a readable history, and
// leaves a damaged one exactly as it is.
func TestReapAt(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	r := &Run{Command: "vx run build", StartedAt: time.Now(), PID: deadPID(t), ProcStart: 1}
	if err := s.BeginRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dead, err := ReapAt(ctx, path, nil)
	if err != nil || len(dead) != 1 || dead[0] != r.ID {
		t.Errorf("ReapAt = %v, %v; want [%s]", dead, err, r.ID)
	}

	bad := Path(t.TempDir())
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	garbage := []byte("not a database, not at all, not even close to one\n")
	if err := os.WriteFile(bad, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	if dead, err := ReapAt(ctx, bad, nil); err != nil || len(dead) != 0 {
		t.Errorf("ReapAt on a damaged history = %v, %v; want nothing done", dead, err)
	}
	if b, err := os.ReadFile(bad); err != nil || string(b) != string(garbage) {
		t.Errorf("ReapAt changed the damaged history: %q, %v", b, err)
	}
	if _, err := OpenReadOnly(ctx, bad, nil); err == nil || !strings.Contains(err.Error(), "next vx run moves it aside") {
		t.Errorf("OpenReadOnly on a damaged history: %v; want a *corruptError saying what the next run does", err)
	}
}
