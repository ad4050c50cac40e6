package history

import (
	"context"
	"database/sql"
	"fmt"
)

// The tables of hit sets (hitset.go).
//
// hit_sets: one row per distinct multiset of plain hits a finished run
// recorded. runs counts the finished runs that recorded it, last_seq and
// last_run name the newest; folded is how many of those runs task_stats
// already counts (hitwrite.go folds a set when a run records another):
// at most one set, the current one, has runs > folded.
//
// run_hits: a run's plain hits. Once the run is finished, one row (part
// 0) naming its set, whose data is zstd of the run's timing (encodeTiming),
// a hit per member. While it records, one row per batch (part 1, 2, …):
// one whose hits are all members of the current set names that set and
// holds only their timing; any other holds no set and its data is zstd
// of the batch's members and then its timing. n is the row's hit count
// and ended_at (Unix ns) the latest end of its hits.
//
// executions.pos is an execution's place among its run's recorded
// executions, hits included (NULL in rows recorded before schema 9,
// whose runs have no run_hits). task_stats.hit_seq and hit_run_id are
// the newest run whose folded set holds the task.
const (
	hitSetsTable = `CREATE TABLE IF NOT EXISTS hit_sets (
		id       INTEGER PRIMARY KEY,
		digest   BLOB    NOT NULL,
		n        INTEGER NOT NULL,
		runs     INTEGER NOT NULL,
		folded   INTEGER NOT NULL,
		last_seq INTEGER NOT NULL,
		last_run TEXT    NOT NULL,
		members  BLOB    NOT NULL
	)`
	hitSetsDigest   = `CREATE UNIQUE INDEX IF NOT EXISTS hit_sets_digest ON hit_sets(digest)`
	hitSetsUnfolded = `CREATE INDEX IF NOT EXISTS hit_sets_unfolded ON hit_sets(id) WHERE runs > folded`
	runHitsTable    = `CREATE TABLE IF NOT EXISTS run_hits (
		id             INTEGER PRIMARY KEY,
		run_id         TEXT    NOT NULL,
		part           INTEGER NOT NULL,
		run_seq        INTEGER NOT NULL,
		run_started_at INTEGER NOT NULL,
		set_id         INTEGER,
		n              INTEGER NOT NULL,
		ended_at       INTEGER NOT NULL,
		data           BLOB    NOT NULL
	)`
	runHitsRun = `CREATE UNIQUE INDEX IF NOT EXISTS run_hits_run ON run_hits(run_id, part)`
	runHitsSeq = `CREATE INDEX IF NOT EXISTS run_hits_seq ON run_hits(run_seq, part)`
	// The parts of runs still recording (or dead, until reaped).
	runHitsParts = `CREATE INDEX IF NOT EXISTS run_hits_parts ON run_hits(run_id) WHERE part > 0`
)

// stepHitSets (schema 8 → 9) adds the hit-set tables and columns. The
// hits recorded so far stay rows of executions; the readers merge both.
// A column already there (the migration tests shape older databases
// from a current one) is left as it is.
func stepHitSets(ctx context.Context, tx *sql.Tx) error {
	stmts := []string{hitSetsTable, hitSetsDigest, hitSetsUnfolded, runHitsTable, runHitsRun, runHitsSeq, runHitsParts}
	for _, c := range []struct{ table, col, def string }{
		{"executions", "pos", "INTEGER"},
		{"task_stats", "hit_seq", "INTEGER NOT NULL DEFAULT 0"},
		{"task_stats", "hit_run_id", "TEXT NOT NULL DEFAULT ''"},
	} {
		var have int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, c.table, c.col).Scan(&have); err != nil {
			return fmt.Errorf("adding hit sets: %w", err)
		}
		if have == 0 {
			stmts = append(stmts, `ALTER TABLE `+c.table+` ADD COLUMN `+c.col+` `+c.def)
		}
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("adding hit sets: %w", err)
		}
	}
	return nil
}
