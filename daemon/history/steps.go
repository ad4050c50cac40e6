package history

import (
	"context"
	"database/sql"
	"fmt"
)

// stepRunProcess (schema 1 → 2) records which vx process holds each run,
// so a run whose process was killed (kill -9, a crash, power loss) can be
// told from one still going: runs.pid and runs.proc_start. Runs of schema
// 1 get 0, unknown, and are left as they were.
func stepRunProcess(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		`ALTER TABLE runs ADD COLUMN pid INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE runs ADD COLUMN proc_start INTEGER NOT NULL DEFAULT 0`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("adding the run's process: %w", err)
		}
	}
	return nil
}

// stepOwnPeaks (schema 2 → 3): peaks recorded before schema 3 were the
// forked child's high-water mark, which counts vx's own pages before exec,
// so a light task showed vx's memory. They are dropped (0: no figure), so
// the memory-budget scheduler never reserves from them; task_stats.max_rss
// is rebuilt from the executions recorded from now on. executions.not_ready
// never held anything but 0 and goes too.
func stepOwnPeaks(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		`UPDATE executions SET peak_rss_bytes = 0 WHERE peak_rss_bytes <> 0`,
		`UPDATE task_stats SET max_rss = 0 WHERE max_rss <> 0`,
		`ALTER TABLE executions DROP COLUMN not_ready`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("dropping untrusted peaks: %w", err)
		}
	}
	return nil
}
