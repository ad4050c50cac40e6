package history

import (
	"context"
	"database/sql"
	"reflect"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

func TestSandboxViolationsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	vs := []wire.SandboxViolation{
		{Op: "create", Path: "/home/u/.npmrc", Process: "node", Pid: 42, Denied: true},
		{Op: "connect", Address: "127.0.0.1:5432", Process: "psql", Pid: 43},
	}
	r := addRun(t, s, "", t0, RunFailed, Execution{TaskID: "web#build", Key: "k", Status: StatusFailed, ExitCode: intp(1), SandboxViolations: vs},
		Execution{TaskID: "web#lint", Key: "l", Status: StatusPassed})
	got, err := s.Executions(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Execution{}
	for _, e := range got {
		byID[e.TaskID] = e
	}
	if !reflect.DeepEqual(byID["web#build"].SandboxViolations, vs) {
		t.Fatalf("read back %+v, want %+v", byID["web#build"].SandboxViolations, vs)
	}
	if byID["web#lint"].SandboxViolations != nil {
		t.Fatalf("an execution without violations reads %+v", byID["web#lint"].SandboxViolations)
	}
	rows, err := s.RecentExecutions(ctx, Filter{Task: "build"})
	if err != nil || len(rows) != 1 || len(rows[0].SandboxViolations) != 2 {
		t.Fatalf("recent rows = %+v, %v", rows, err)
	}
}

// A schema-4 history (before sandbox_violations) migrates and keeps its rows.
func TestMigrateAddsSandboxViolations(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	r := addRun(t, s, "", t0, RunPassed, Execution{TaskID: "web#build", Key: "k", Status: StatusPassed})
	s.Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE executions DROP COLUMN sandbox_violations; PRAGMA user_version = 4`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s2, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err := s2.Executions(ctx, r.ID)
	if err != nil || len(got) != 1 || got[0].TaskID != "web#build" {
		t.Fatalf("after migration: %+v, %v", got, err)
	}
	vs := []wire.SandboxViolation{{Op: "write", Path: "/etc/hosts", Process: "sh", Pid: 7, Denied: true}}
	r2 := addRun(t, s2, "", t0, RunFailed, Execution{TaskID: "web#build", Key: "k", Status: StatusFailed, ExitCode: intp(1), SandboxViolations: vs})
	got, err = s2.Executions(ctx, r2.ID)
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0].SandboxViolations, vs) {
		t.Fatalf("after migration, recording violations: %+v, %v", got, err)
	}
}
