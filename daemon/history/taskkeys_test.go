package history

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
)

// A schema-5 history (flaky keys found through an index of executions by
// key) migrates to task_keys: what passed or failed before still pairs with
// what is recorded after, and the per-key and per-project indexes are gone.
func TestMigrateTaskKeys(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	addRun(t, s, "", t0, RunPassed,
		Execution{TaskID: "web#build", Key: "kp", Status: StatusPassed},
		Execution{TaskID: "api#build", Key: "kf", Status: StatusFailed, ExitCode: intp(1)},
		Execution{TaskID: "doc#build", Key: "kt", Status: StatusTimedOut, TimedOut: true},
		Execution{TaskID: "lib#build", Key: "ks", Status: StatusPassed},
		Execution{TaskID: "lib#build", Status: StatusBlocked})
	s.Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DROP TABLE task_keys; CREATE INDEX executions_key ON executions(key, status,` +
		` task_id); CREATE INDEX executions_project ON executions(project, run_seq); PRAGMA user_version = 5`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s2, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var n int
	if err := s2.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN ('executions_key', 'executions_project')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("executions_key and executions_project after the migration: %d (%v)", n, err)
	}
	// web passed with kp and now fails with it; api failed with kf and
	// now passes (a hit counts as a pass); doc timed out and now passes;
	// lib passes again with ks (not flaky).
	addRun(t, s2, "", t0, RunFailed,
		Execution{TaskID: "web#build", Key: "kp", Status: StatusFailed, ExitCode: intp(1)},
		Execution{TaskID: "api#build", Key: "kf", Status: StatusPassed, Cache: CacheHit},
		Execution{TaskID: "doc#build", Key: "kt", Status: StatusPassed},
		Execution{TaskID: "lib#build", Key: "ks", Status: StatusPassed, Cache: CacheHit})
	got, err := s2.FlakyTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"api#build", "doc#build", "web#build"}; !reflect.DeepEqual(got, want) {
		t.Errorf("flaky after the migration: %v, want %v", got, want)
	}
}
