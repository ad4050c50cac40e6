package history

import (
	"context"
	"database/sql"
	"fmt"
)

// When the write-ahead log is copied into the database file (checkpointed).
//
// SQLite checkpoints at the commit that takes the WAL past
// wal_autocheckpoint pages (1,000 by default) and again when the last
// connection to the database closes. A fully cached run of 1,000 tasks
// writes about 1,100 pages in its one transaction, so each run paid a
// checkpoint at the end of its history write: the pages copied into the
// database and two fsyncs, 27–34 ms of wall time at the very end of the
// run, with nothing else left to overlap it.
//
// Here a store whose schema was already current at open (every run after
// the first) leaves its frames in the WAL when it closes, and the next
// open (which vx run does while the workspace loads) checkpoints them.
// A run then ends with its commit. wal_autocheckpoint is raised so that
// one run's commit does not start a checkpoint itself, and still bounds
// the WAL when no open checkpoints (a daemon holding the history for
// hours).
//
// Durability: with synchronous=NORMAL a commit reaches the WAL without an
// fsync, as before; the WAL is fsynced by the next checkpoint, now at the
// next open rather than at close. A crash of the process loses nothing
// committed. A power loss can lose the runs recorded since the last
// checkpoint (the kernel writes the WAL out within seconds anyway); it
// cannot tear the database: the WAL's frames carry checksums and a torn
// tail is discarded when the WAL is next read.

// walAutoCheckpoint is the WAL size, in pages (4 KiB), at which a commit
// checkpoints: several runs' worth, about 32 MiB.
const walAutoCheckpoint = 8000

// settleWAL raises the writer's autocheckpoint and checkpoints what earlier
// processes left in the WAL. PASSIVE: it copies what no reader still needs
// and never waits for one; frames it could not copy stay for a later try.
func (s *Store) settleWAL(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", walAutoCheckpoint)); err != nil {
		return fmt.Errorf("setting wal_autocheckpoint: %w", err)
	}
	var busy, logged, copied int
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logged, &copied); err != nil {
		return fmt.Errorf("checkpointing the WAL: %w", err)
	}
	return nil
}

// holdSnapshot takes a connection of the reader pool and reads through it,
// which leaves it holding a shared lock on the database file: while it is
// open, closing the writer finds another connection and does not
// checkpoint. Being read-only, it cannot checkpoint when it closes either.
// It returns nil when there is no reader to hold.
func (s *Store) holdSnapshot(ctx context.Context) *sql.Conn {
	if s.r == nil {
		return nil
	}
	c, err := s.r.Conn(ctx)
	if err != nil {
		return nil
	}
	var n int
	if err := c.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		c.Close()
		return nil
	}
	return c
}
