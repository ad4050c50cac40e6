package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

func (s *Store) writable() error {
	if s.w == nil {
		return errReadOnly
	}
	return nil
}

func validRunID(id string) bool {
	if len(id) != 12 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func validRunStatus(s string) bool {
	switch s {
	case RunRunning, RunPassed, RunFailed, RunInterrupted:
		return true
	}
	return false
}

func validExecStatus(s string) bool {
	switch s {
	case StatusPassed, StatusFailed, StatusBlocked, StatusTimedOut, statusInterrupted, statusSkipped:
		return true
	}
	return false
}

func validCache(c string) bool { return c == CacheHit || c == CacheMiss || c == CacheOff }

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(ns int64) time.Time { return time.Unix(0, ns) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BeginRun records a new run. An empty r.ID gets NewRunID; an empty
// r.Status is "running". r.ID and r.Seq are set on return.
func (s *Store) BeginRun(ctx context.Context, r *Run) error {
	if err := s.writable(); err != nil {
		return fmt.Errorf("beginning run: %w", err)
	}
	generated := r.ID == ""
	if generated {
		r.ID = NewRunID()
	}
	if !validRunID(r.ID) {
		return fmt.Errorf("beginning run: run id %q is not 12 lowercase hex digits", r.ID)
	}
	if r.Status == "" {
		r.Status = RunRunning
	}
	if r.Status == RunRunning && r.PID == 0 {
		r.PID, r.ProcStart = os.Getpid(), ProcStart(os.Getpid())
	}
	if !validRunStatus(r.Status) {
		return fmt.Errorf("beginning run %s: unknown run status %q (want running, passed, failed or interrupted)", r.ID, r.Status)
	}
	args := r.Args
	if args == nil {
		args = []string{}
	}
	argsJSON, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("beginning run %s: %w", r.ID, err)
	}
	var ended any
	if r.EndedAt != nil {
		ended = nanos(*r.EndedAt)
	}
	var exit any
	if r.ExitCode != nil {
		exit = *r.ExitCode
	}
	for attempt := 0; ; attempt++ {
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			return tx.QueryRowContext(ctx, `INSERT INTO runs
				(id, seq, command, args, started_at, ended_at, status, exit_code, git_branch, git_commit, ci, tasks, failed, cached, duration_ms, pid, proc_start)
				VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM runs), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				RETURNING seq`,
				r.ID, r.Command, string(argsJSON), nanos(r.StartedAt), ended, r.Status, exit,
				r.GitBranch, r.GitCommit, boolInt(r.CI), r.Tasks, r.Failed, r.Cached, r.DurationMs, r.PID, r.ProcStart,
			).Scan(&r.Seq)
		})
		if err != nil && generated && isConstraint(err) && attempt < 3 {
			r.ID = NewRunID() // a random id collided; draw again
			continue
		}
		break
	}
	if err != nil {
		if isConstraint(err) {
			return fmt.Errorf("beginning run: run id %s is already recorded", r.ID)
		}
		return fmt.Errorf("beginning run %s: %w", r.ID, err)
	}
	return nil
}

// FinishRun records how a run ended; DurationMs is endedAt minus the run's
// start.
func (s *Store) FinishRun(ctx context.Context, runID string, status string, exitCode int, endedAt time.Time, tasks, failed, cached int) error {
	if err := s.writable(); err != nil {
		return fmt.Errorf("finishing run %s: %w", runID, err)
	}
	if !validRunStatus(status) {
		return fmt.Errorf("finishing run %s: unknown run status %q (want passed, failed or interrupted)", runID, status)
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET ended_at = ?1, status = ?2, exit_code = ?3,
			tasks = ?4, failed = ?5, cached = ?6, duration_ms = max(0, (?1 - started_at) / 1000000)
			WHERE id = ?7`,
			nanos(endedAt), status, exitCode, tasks, failed, cached, runID)
		if err != nil {
			return fmt.Errorf("finishing run %s: %w", runID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("finishing run %s: %w", runID, ErrNotFound)
		}
		return s.finishHits(ctx, tx, runID)
	})
}

// RecordExecutions appends executions in one transaction, in slice order,
// and updates the per-task statistics and flaky keys with them. Every
// execution's run must have been begun. An execution with neither Project
// nor Task set gets them from its TaskID (in the slice too).
func (s *Store) RecordExecutions(ctx context.Context, execs []Execution) error {
	if err := s.writable(); err != nil {
		return fmt.Errorf("recording executions: %w", err)
	}
	if len(execs) == 0 {
		return nil
	}
	for i := range execs {
		e := &execs[i]
		switch {
		case e.TaskID == "":
			return fmt.Errorf("recording executions: execution %d has no task id", i)
		case !validExecStatus(e.Status):
			return fmt.Errorf("recording execution of %s: unknown status %q (want passed, failed, blocked, timedOut, interrupted or skipped)", e.TaskID, e.Status)
		case !validCache(e.Cache):
			return fmt.Errorf("recording execution of %s: unknown cache outcome %q (want hit, miss or off)", e.TaskID, e.Cache)
		}
		if e.Project == "" && e.Task == "" {
			// The filters read these columns: derive them from project#task.
			if i := strings.LastIndex(e.TaskID, "#"); i >= 0 {
				e.Project, e.Task = e.TaskID[:i], e.TaskID[i+1:]
			}
		}
	}
	return s.inTx(ctx, func(tx *sql.Tx) error { return s.recordBatch(ctx, tx, execs) })
}

// PutComponents stores the key components of a cache key, zstd-compressed.
// A key already stored is left as it is: the same key has the same
// components.
func (s *Store) PutComponents(ctx context.Context, key string, blob []byte) error {
	if err := s.writable(); err != nil {
		return fmt.Errorf("storing key components: %w", err)
	}
	if key == "" {
		return fmt.Errorf("storing key components: empty cache key")
	}
	z := s.enc.EncodeAll(blob, nil)
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO components (key, blob) VALUES (?, ?)`, key, z); err != nil {
			return fmt.Errorf("storing key components of %s: %w", key, err)
		}
		return nil
	})
}

// PutComponentsBatch stores many keys' components in one transaction,
// compressing and inserting only those not stored yet (most keys of a warm
// run are).
func (s *Store) PutComponentsBatch(ctx context.Context, blobs map[string][]byte) error {
	if err := s.writable(); err != nil {
		return fmt.Errorf("storing key components: %w", err)
	}
	keys := make([]string, 0, len(blobs))
	for k := range blobs {
		if k != "" {
			keys = append(keys, k)
		}
	}
	// Which are stored already is read outside the write transaction: a
	// fully cached run stores none, and took the write lock for its
	// 1,000 lookups while its executions waited to be written.
	have, err := s.storedComponents(ctx, keys)
	if err != nil {
		return err
	}
	var missing []string
	for _, k := range keys {
		if !have[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO components (key, blob) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, k := range missing {
			// OR IGNORE: another run may have stored it since the read.
			if _, err := stmt.ExecContext(ctx, k, s.enc.EncodeAll(blobs[k], nil)); err != nil {
				return fmt.Errorf("storing key components of %s: %w", k, err)
			}
		}
		return nil
	})
}

// storedComponents reports which of keys have their components stored,
// read on the store's read connection.
func (s *Store) storedComponents(ctx context.Context, keys []string) (map[string]bool, error) {
	db, err := s.reader(ctx)
	if err != nil {
		return nil, err
	}
	if db == nil {
		db = s.w
	}
	have := map[string]bool{}
	err = inChunks(keys, func(ph string, args []any) error {
		rows, err := db.QueryContext(ctx, "SELECT key FROM components WHERE key IN ("+ph+")", args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			have[k] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("reading stored key components: %w", err)
	}
	return have, nil
}

// inTx runs fn in one write transaction. The writer's DSN makes every BEGIN
// IMMEDIATE: the write lock is taken (waiting out the busy timeout) before
// anything is read, so a transaction never fails half-way because another
// process wrote in between.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
