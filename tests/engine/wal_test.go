//go:build !windows

package engine_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// A run leaves its history write in the WAL and the next run's open
// checkpoints it (daemon/history/checkpoint.go): every run stays visible
// to readers, the database file alone holds every run but the last, it
// stays intact, and the WAL does not grow run after run.
func TestHistoryLeftInWALIsKept(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	var ids []string
	for i := 0; i < 4; i++ {
		s, _ := runJSON(t, ws, nil, 0, "build")
		ids = append(ids, s.RunID)
	}
	db := filepath.Join(ws, ".vx", "vx.db")
	st, err := os.Stat(db + "-wal")
	if err != nil || st.Size() == 0 {
		t.Fatalf("after four runs the last one's history should be in %s-wal: %v", db, err)
	}
	walAfter4 := st.Size()
	for _, id := range ids {
		if n := countRuns(t, db, id); n != 1 {
			t.Errorf("run %s: %d rows in runs, want 1 (read with its WAL)", id, n)
		}
	}

	// The database file alone (as a power loss could leave it, the
	// WAL's unsynced tail lost) is intact and holds every earlier run.
	alone := filepath.Join(t.TempDir(), "vx.db")
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o644); err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("sqlite3", "file:"+alone)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var check string
	if err := conn.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("the database file without its WAL: integrity_check %q, %v", check, err)
	}
	for _, id := range ids[:len(ids)-1] {
		var n int
		if err := conn.QueryRow(`SELECT count(*) FROM runs WHERE id = ?`, id).Scan(&n); err != nil || n != 1 {
			t.Errorf("run %s not in the database file without its WAL (%d, %v): the next open should have checkpointed it", id, n, err)
		}
	}

	for i := 0; i < 4; i++ {
		runJSON(t, ws, nil, 0, "build")
	}
	if st, err := os.Stat(db + "-wal"); err != nil {
		t.Error(err)
	} else if st.Size() > 2*walAfter4 {
		t.Errorf("the WAL grew from %d bytes to %d over four more runs: each open should checkpoint and the next write restart it", walAfter4, st.Size())
	}
}

func countRuns(t *testing.T, db, id string) int {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT count(*) FROM runs WHERE id = ?`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
