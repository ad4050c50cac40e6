//go:build !windows

package engine_test

import (
	"bytes"
	"context"
	"database/sql"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// TestBusyDatabaseWaits holds the history's write lock from another
// process (this one) while vx runs: vx must wait for it, not fail.
func TestBusyDatabaseWaits(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	first, _ := runJSON(t, ws, nil, 0, "build") // creates .vx/vx.db

	db, err := sql.Open("sqlite3", "file:"+filepath.Join(ws, ".vx", "vx.db")+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatalf("taking the write lock: %v", err)
	}
	locked := true
	defer func() {
		if locked {
			conn.ExecContext(ctx, "ROLLBACK")
		}
	}()

	cmd := exec.Command(vxBin, "run", "build", "--format", "json")
	cmd.Dir = ws
	cmd.Env = baseEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	// vx needs the write lock to record its run: it cannot finish while
	// the lock is held (well within its busy timeout).
	select {
	case err := <-done:
		t.Fatalf("vx finished while another process held the database's write lock (%v)\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	case <-time.After(1500 * time.Millisecond):
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	locked = false
	if err := <-done; err != nil {
		t.Fatalf("vx failed on a busy database: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	var s summary
	decodeOnly(t, result{Cmd: strings.Join(cmd.Args, " "), Args: cmd.Args[1:], Stdout: stdout.String(), Stderr: stderr.String()}, &s)
	if !s.OK || len(s.Warnings) != 0 {
		t.Errorf("run on a busy database: ok=%v warnings %q", s.OK, s.Warnings)
	}
	var list struct {
		Runs []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	answerJSON(t, ws, &list, "last", "--list")
	if len(list.Runs) != 2 || list.Runs[0].ID != s.RunID || list.Runs[1].ID != first.RunID {
		t.Errorf("vx last --list = %+v, want %s then %s", list.Runs, s.RunID, first.RunID)
	}
}
