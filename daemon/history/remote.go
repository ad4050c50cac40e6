package history

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// remoteRunColumns are the runs columns that record a run's remote cache
// activity (wire.RemoteRun); remote_status is "" for a run with no remote.
const remoteRunColumns = `remote_status TEXT NOT NULL DEFAULT '',
		remote_hits INTEGER NOT NULL DEFAULT 0,
		remote_rejected INTEGER NOT NULL DEFAULT 0,
		remote_uploads INTEGER NOT NULL DEFAULT 0,
		remote_upload_failures INTEGER NOT NULL DEFAULT 0,
		remote_bytes_down INTEGER NOT NULL DEFAULT 0,
		remote_bytes_up INTEGER NOT NULL DEFAULT 0`

// addRemoteCacheColumns is the schema 3 → 4 migration: where each hit came
// from (executions.cache_source) and each run's remote activity.
func addRemoteCacheColumns(ctx context.Context, tx *sql.Tx) error {
	stmts := []string{`ALTER TABLE executions ADD COLUMN cache_source TEXT NOT NULL DEFAULT ''`}
	for _, col := range []string{"remote_status TEXT NOT NULL DEFAULT ''", "remote_hits INTEGER NOT NULL DEFAULT 0",
		"remote_rejected INTEGER NOT NULL DEFAULT 0", "remote_uploads INTEGER NOT NULL DEFAULT 0",
		"remote_upload_failures INTEGER NOT NULL DEFAULT 0", "remote_bytes_down INTEGER NOT NULL DEFAULT 0",
		"remote_bytes_up INTEGER NOT NULL DEFAULT 0"} {
		stmts = append(stmts, "ALTER TABLE runs ADD COLUMN "+col)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("adding remote cache columns: %w", err)
		}
	}
	return nil
}

// RecordRemote stores what a run did with the remote cache.
func (s *Store) RecordRemote(ctx context.Context, runID string, r wire.RemoteRun) error {
	if err := s.writable(); err != nil {
		return fmt.Errorf("recording remote activity of run %s: %w", runID, err)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET remote_status = ?, remote_hits = ?, remote_rejected = ?, remote_uploads = ?,
			remote_upload_failures = ?, remote_bytes_down = ?, remote_bytes_up = ? WHERE id = ?`,
			r.Status, r.Hits, r.Rejected, r.Uploads, r.UploadFailures, r.BytesDown, r.BytesUp, runID)
		if err != nil {
			return fmt.Errorf("recording remote activity of run %s: %w", runID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("recording remote activity of run %s: %w", runID, ErrNotFound)
		}
		return nil
	})
}

// RemoteActivity is the remote cache's share of recent runs.
type RemoteActivity struct {
	LocalHits      int    `json:"localHits"`
	RemoteHits     int    `json:"remoteHits"`
	Rejected       int    `json:"rejected"`
	Uploads        int    `json:"uploads"`
	UploadFailures int    `json:"uploadFailures"`
	BytesDown      int64  `json:"bytesDown"`
	BytesUp        int64  `json:"bytesUp"`
	LastStatus     string `json:"lastStatus,omitempty"` // the latest run's remote status
}

// RemoteActivitySince splits the hits of executions since since by the
// cache that answered them, optionally for one project, and sums the
// runs' remote transfers.
func (s *Store) RemoteActivitySince(ctx context.Context, since time.Time, project string) (RemoteActivity, error) {
	var a RemoteActivity
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return a, err
	}
	q := `SELECT coalesce(sum(cache = 'hit' AND cache_source != 'remote'), 0), coalesce(sum(cache_source = 'remote'), 0)
		FROM executions WHERE run_started_at >= ?1 AND (?2 = '' OR project = ?2)`
	if err := db.QueryRowContext(ctx, q, nanos(since), project).Scan(&a.LocalHits, &a.RemoteHits); err != nil {
		return a, fmt.Errorf("reading remote cache activity: %w", err)
	}
	plain, err := s.hitsSince(ctx, db, 0, nanos(since), project)
	if err != nil {
		return a, fmt.Errorf("reading remote cache activity: %w", err)
	}
	for _, n := range plain {
		a.LocalHits += n // plain hits are local (hitset.go)
	}
	err = db.QueryRowContext(ctx, `SELECT coalesce(sum(remote_rejected), 0), coalesce(sum(remote_uploads), 0), coalesce(sum(remote_upload_failures), 0),
		coalesce(sum(remote_bytes_down), 0), coalesce(sum(remote_bytes_up), 0) FROM runs WHERE started_at >= ?`, nanos(since)).
		Scan(&a.Rejected, &a.Uploads, &a.UploadFailures, &a.BytesDown, &a.BytesUp)
	if err != nil {
		return a, fmt.Errorf("reading remote cache activity: %w", err)
	}
	err = db.QueryRowContext(ctx, `SELECT remote_status FROM runs WHERE remote_status != '' ORDER BY seq DESC LIMIT 1`).Scan(&a.LastStatus)
	if err != nil && err != sql.ErrNoRows {
		return a, fmt.Errorf("reading remote cache activity: %w", err)
	}
	return a, nil
}
