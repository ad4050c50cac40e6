package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// schema is SchemaVersion's layout. Times are Unix nanoseconds.
//
// executions.run_seq and run_started_at copy the run's so that reads by run
// or by task need no join; executions.prev_id links each task's executions
// into a chain, newest first, whose head is task_stats.last_id (chain.go):
// per-task and per-project history walks it rather than an index by task,
// whose scattered entries made every run's write grow with the history.
// executions.ran marks rows that actually ran the command (not a hit;
// passed, failed or timed out). task_stats (with each task's window of recent executed durations
// and the percentiles over it) and flaky_keys are kept by RecordExecutions
// in the same transaction as the rows they summarise, so that stats never
// scan the executions table.
// output is the last column so that reads which skip it never touch its
// overflow pages (in a history migrated from an older schema, the columns
// added since, sandbox_violations and prev_id, come after it).
var schema = []string{
	`CREATE TABLE runs (
		id          TEXT    NOT NULL PRIMARY KEY,
		seq         INTEGER NOT NULL,
		command     TEXT    NOT NULL,
		args        TEXT    NOT NULL,
		started_at  INTEGER NOT NULL,
		ended_at    INTEGER,
		status      TEXT    NOT NULL,
		exit_code   INTEGER,
		git_branch  TEXT    NOT NULL,
		git_commit  TEXT    NOT NULL,
		ci          INTEGER NOT NULL,
		tasks       INTEGER NOT NULL DEFAULT 0,
		failed      INTEGER NOT NULL DEFAULT 0,
		cached      INTEGER NOT NULL DEFAULT 0,
		duration_ms INTEGER NOT NULL DEFAULT 0,
		executions  INTEGER NOT NULL DEFAULT 0,
		hits        INTEGER NOT NULL DEFAULT 0,
		pid         INTEGER NOT NULL DEFAULT 0,
		proc_start  INTEGER NOT NULL DEFAULT 0,
		` + remoteRunColumns + `
	) WITHOUT ROWID`,
	`CREATE UNIQUE INDEX runs_seq ON runs(seq)`,
	`CREATE INDEX runs_status_seq ON runs(status, seq)`,
	// Covers Trends and CacheActivity.
	`CREATE INDEX runs_started ON runs(started_at, seq, status, ended_at, duration_ms, executions, hits)`,

	`CREATE TABLE executions (
		id               INTEGER PRIMARY KEY,
		run_id           TEXT    NOT NULL,
		run_seq          INTEGER NOT NULL,
		run_started_at   INTEGER NOT NULL,
		task_id          TEXT    NOT NULL,
		project          TEXT    NOT NULL,
		task             TEXT    NOT NULL,
		key              TEXT    NOT NULL,
		status           TEXT    NOT NULL,
		cache            TEXT    NOT NULL,
		ran              INTEGER NOT NULL,
		exit_code        INTEGER,
		started_at       INTEGER NOT NULL,
		duration_ms      INTEGER NOT NULL,
		peak_rss_bytes   INTEGER NOT NULL,
		cpu_parallelism  REAL    NOT NULL,
		blocked_by       TEXT,
		timed_out        INTEGER NOT NULL,
		reason           TEXT    NOT NULL,
		output_truncated INTEGER NOT NULL,
		cache_source     TEXT    NOT NULL DEFAULT '',
		sandbox_violations TEXT,
		prev_id          INTEGER,
		pos              INTEGER,
		output           BLOB
	)`,
	`CREATE INDEX executions_run ON executions(run_id)`,
	`CREATE INDEX executions_seq ON executions(run_seq)`,
	`CREATE INDEX executions_name ON executions(task, run_seq)`,

	`CREATE TABLE task_stats (
		task_id     TEXT    NOT NULL PRIMARY KEY,
		project     TEXT    NOT NULL,
		task        TEXT    NOT NULL,
		count       INTEGER NOT NULL,
		ran         INTEGER NOT NULL,
		passed      INTEGER NOT NULL,
		failed      INTEGER NOT NULL,
		timed_out   INTEGER NOT NULL,
		blocked     INTEGER NOT NULL,
		interrupted INTEGER NOT NULL,
		hits        INTEGER NOT NULL,
		cacheable   INTEGER NOT NULL,
		max_rss     INTEGER NOT NULL,
		max_cpu     REAL    NOT NULL,
		last_seq    INTEGER NOT NULL,
		last_id     INTEGER NOT NULL,
		last_status TEXT    NOT NULL,
		last_run_id TEXT    NOT NULL,
		last_key    TEXT    NOT NULL DEFAULT '',
		p50_ms      INTEGER NOT NULL,
		p99_ms      INTEGER NOT NULL,
		recent      BLOB,
		hit_seq     INTEGER NOT NULL DEFAULT 0,
		hit_run_id  TEXT    NOT NULL DEFAULT ''
	) WITHOUT ROWID`,
	`CREATE INDEX task_stats_project ON task_stats(project)`,
	`CREATE INDEX task_stats_task ON task_stats(task)`,

	`CREATE TABLE flaky_keys (
		task_id TEXT    NOT NULL,
		key     TEXT    NOT NULL,
		run_seq INTEGER NOT NULL,
		PRIMARY KEY (task_id, key)
	) WITHOUT ROWID`,

	taskKeysTable,
	hitSetsTable, hitSetsDigest, hitSetsUnfolded, runHitsTable, runHitsRun, runHitsSeq, runHitsParts,

	`CREATE TABLE components (
		key  TEXT NOT NULL PRIMARY KEY,
		blob BLOB NOT NULL
	)`,
}

// migrations[v] moves a database from version v to v+1 inside the open
// transaction (the steps are in steps.go, remote.go, sandbox.go, taskkeys.go
// and chain.go).
var migrations = map[int]func(ctx context.Context, tx *sql.Tx) error{
	1: stepRunProcess,        // runs.pid, runs.proc_start: find runs whose vx died
	2: stepOwnPeaks,          // drop peaks that were vx's own memory; drop executions.not_ready
	3: addRemoteCacheColumns, // executions.cache_source, runs.remote_*: where hits came from
	4: addSandboxViolations,  // executions.sandbox_violations
	5: stepTaskKeys,          // task_keys replaces the executions_key index; executions_project goes (taskkeys.go, project.go)
	6: stepTaskChain,         // executions.prev_id chains replace the executions_task index (chain.go)
	7: stepLastKey,           // task_stats.last_key: the flaky check knows a repeated pass without a join (chain.go)
	8: stepHitSets,           // hit_sets, run_hits, executions.pos, task_stats.hit_*: plain hits recorded as sets (hitset.go)
}

// prepareSchema creates, migrates or resets the schema in one IMMEDIATE
// transaction, so that two processes opening a new workspace at once agree.
func (s *Store) prepareSchema(ctx context.Context) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("preparing schema: %w", err)
	}
	defer tx.Rollback()
	v, tables, err := schemaState(ctx, tx)
	if err != nil {
		return err
	}
	switch {
	case v == SchemaVersion:
		s.keepWAL = true
		return tx.Commit()
	case v == 0 && tables == 0:
		if err := createSchema(ctx, tx); err != nil {
			return err
		}
		return tx.Commit()
	}
	if canMigrate(v) {
		from := v
		for ; v < SchemaVersion; v++ {
			if err := migrations[v](ctx, tx); err != nil {
				return fmt.Errorf("migrating schema %d to %d: %w", v, v+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
			return fmt.Errorf("migrating schema: %w", err)
		}
		s.log.Info().Str("path", s.path).Int("from", from).Int("to", SchemaVersion).Msg("run history migrated")
		return tx.Commit()
	}
	s.log.Warn().Str("path", s.path).Int("found", v).Int("want", SchemaVersion).
		Msg("run history was written by another vx version with no migration to this one; starting a new history")
	if err := dropAll(ctx, tx); err != nil {
		return err
	}
	if err := createSchema(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

func canMigrate(v int) bool {
	if v <= 0 || v >= SchemaVersion {
		return false
	}
	for ; v < SchemaVersion; v++ {
		if migrations[v] == nil {
			return false
		}
	}
	return true
}

func createSchema(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("creating schema: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return fmt.Errorf("creating schema: %w", err)
	}
	return nil
}

func dropAll(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx,
		"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
	if err != nil {
		return fmt.Errorf("resetting schema: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return fmt.Errorf("resetting schema: %w", err)
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("resetting schema: %w", err)
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS "`+strings.ReplaceAll(n, `"`, `""`)+`"`); err != nil {
			return fmt.Errorf("resetting schema: dropping %s: %w", n, err)
		}
	}
	return nil
}
