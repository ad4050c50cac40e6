package history

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// PutComponentsBatch stores the components of keys not stored yet, keeps
// those already stored as they are (the same key has the same
// components), skips an empty key, and writes nothing when all are stored.
func TestPutComponentsBatch(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, Path(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutComponents(ctx, "k0", []byte(`{"first":true}`)); err != nil {
		t.Fatal(err)
	}
	blobs := map[string][]byte{"": []byte("no key")}
	for i := 0; i < 1200; i++ { // more than one lookup chunk
		blobs[fmt.Sprintf("k%d", i)] = []byte(fmt.Sprintf(`{"n":%d}`, i))
	}
	if err := s.PutComponentsBatch(ctx, blobs); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k0", "k1", "k599", "k1199"} {
		got, err := s.Components(ctx, k)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		want := string(blobs[k])
		if k == "k0" {
			want = `{"first":true}`
		}
		if string(got) != want {
			t.Errorf("%s: %s, want %s", k, got, want)
		}
	}
	var n int
	if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM components`).Scan(&n); err != nil || n != 1200 {
		t.Fatalf("%d components stored (%v), want 1200", n, err)
	}
	// All stored: no write transaction at all. Another process holding
	// the write lock (a run writing its executions) does not hold it up.
	other := openDB(dsn(s.path, fmt.Sprintf("_busy_timeout=%d&_txlock=immediate", busyTimeoutMs)))
	defer other.Close()
	lock, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, `UPDATE runs SET seq = seq WHERE 0`); err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	done := make(chan error, 1)
	go func() { done <- s.PutComponentsBatch(ctx, blobs) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("storing only stored keys waited for another writer's lock")
	}
}
