package history

import (
	"context"
	"database/sql"
	"testing"
	"time"
)

// A schema 7 history migrates to 8: every task's last_key is the key of its
// last execution, and recording goes on keeping it.
func TestMigrateLastKey(t *testing.T) {
	ctx := context.Background()
	path := Path(t.TempDir())
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour)
	ok := func(id, key string) Execution {
		return Execution{TaskID: id, Key: key, Status: StatusPassed, ExitCode: intp(0)}
	}
	addRun(t, s, "", t0, RunPassed, ok("a#build", "k1"), ok("b#build", "k1"))
	addRun(t, s, "", t0.Add(time.Minute), RunPassed, ok("a#build", "k2"))
	s.Close()

	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE task_stats DROP COLUMN last_key; PRAGMA user_version = 7`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	m, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	keys := func() map[string]string {
		out := map[string]string{}
		rows, err := m.w.QueryContext(ctx, `SELECT task_id, last_key FROM task_stats`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, k string
			if err := rows.Scan(&id, &k); err != nil {
				t.Fatal(err)
			}
			out[id] = k
		}
		return out
	}
	if got := keys(); got["a#build"] != "k2" || got["b#build"] != "k1" {
		t.Fatalf("last keys after the migration: %v, want a#build k2, b#build k1", got)
	}
	addRun(t, m, "", t0.Add(2*time.Minute), RunPassed, ok("b#build", "k3"))
	if got := keys(); got["a#build"] != "k2" || got["b#build"] != "k3" {
		t.Fatalf("last keys after one more run: %v, want a#build k2, b#build k3", got)
	}
}
