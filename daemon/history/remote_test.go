package history

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// TestRemoteActivity records hits by source and a run's remote transfers,
// and reads them back split and summed.
func TestRemoteActivity(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	addRun(t, s, "aaaaaaaaaaa1", now.Add(-time.Hour), RunPassed,
		Execution{TaskID: "web#build", Key: "k1", Status: StatusPassed, Cache: CacheHit, CacheSource: wire.CacheSourceRemote},
		Execution{TaskID: "api#build", Key: "k2", Status: StatusPassed, Cache: CacheHit, CacheSource: wire.CacheSourceLocal},
		Execution{TaskID: "ui#build", Key: "k3", Status: StatusPassed, Cache: CacheMiss})
	if err := s.RecordRemote(ctx, "aaaaaaaaaaa1", wire.RemoteRun{Status: "enabled", Hits: 1, Rejected: 2, Uploads: 3, UploadFailures: 1, BytesDown: 100, BytesUp: 300}); err != nil {
		t.Fatal(err)
	}
	addRun(t, s, "aaaaaaaaaaa0", now.Add(-48*time.Hour), RunPassed,
		Execution{TaskID: "web#build", Key: "k0", Status: StatusPassed, Cache: CacheHit, CacheSource: wire.CacheSourceRemote})
	a, err := s.RemoteActivitySince(ctx, now.Add(-24*time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	want := RemoteActivity{LocalHits: 1, RemoteHits: 1, Rejected: 2, Uploads: 3, UploadFailures: 1, BytesDown: 100, BytesUp: 300, LastStatus: "enabled"}
	if a != want {
		t.Fatalf("activity %+v, want %+v", a, want)
	}
	if a, _ := s.RemoteActivitySince(ctx, now.Add(-24*time.Hour), "api"); a.LocalHits != 1 || a.RemoteHits != 0 {
		t.Fatalf("api's activity %+v", a)
	}
	ex, err := s.Execution(ctx, "aaaaaaaaaaa1", "web#build")
	if err != nil || ex.CacheSource != wire.CacheSourceRemote {
		t.Fatalf("execution read back: %+v %v", ex, err)
	}
	if err := s.RecordRemote(ctx, "bbbbbbbbbbbb", wire.RemoteRun{}); err == nil {
		t.Fatal("RecordRemote of an unknown run succeeded")
	}
}

// TestMigrateSchema3 opens a history written before the remote cache
// columns existed: its rows stay, and the new columns work.
func TestMigrateSchema3(t *testing.T) {
	s, path := openTemp(t)
	addRun(t, s, "cccccccccccc", time.Now(), RunPassed, Execution{TaskID: "web#build", Key: "k1", Status: StatusPassed, Cache: CacheHit})
	s.Close()
	// Make it schema 3 again: the layout without the remote (and sandbox) columns.
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"ALTER TABLE executions DROP COLUMN cache_source", "ALTER TABLE executions DROP COLUMN sandbox_violations",
		"ALTER TABLE runs DROP COLUMN remote_status", "ALTER TABLE runs DROP COLUMN remote_hits", "ALTER TABLE runs DROP COLUMN remote_rejected",
		"ALTER TABLE runs DROP COLUMN remote_uploads", "ALTER TABLE runs DROP COLUMN remote_upload_failures",
		"ALTER TABLE runs DROP COLUMN remote_bytes_down", "ALTER TABLE runs DROP COLUMN remote_bytes_up", "PRAGMA user_version = 3"} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	if _, err := OpenReadOnly(context.Background(), path, nil); err == nil {
		t.Fatal("a read-only open of a schema 3 history did not refuse it")
	}
	m, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ex, err := m.Execution(context.Background(), "cccccccccccc", "web#build")
	if err != nil || ex.Cache != CacheHit || ex.CacheSource != "" {
		t.Fatalf("old row after migration: %+v %v", ex, err)
	}
	addRun(t, m, "dddddddddddd", time.Now(), RunPassed, Execution{TaskID: "web#build", Key: "k2", Status: StatusPassed, Cache: CacheHit, CacheSource: wire.CacheSourceRemote})
	if err := m.RecordRemote(context.Background(), "dddddddddddd", wire.RemoteRun{Status: "enabled", Hits: 1}); err != nil {
		t.Fatal(err)
	}
}
