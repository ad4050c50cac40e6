package history

import (
	"context"
	"database/sql"
)

// execBound runs a data-modifying statement of many parameters through
// QueryContext rather than ExecContext. The driver binds a query's
// positional arguments in one crossing into C together with its first
// step (which runs the statement), where an Exec binds them one cgo call
// each: a fully cached run's 1,000 executions are some 46,000 parameters
// in the executions insert and the task_stats upsert, about 3.5 ms of
// CPU in their binding alone. The statement returns no rows; closing
// them resets it, and an error of the statement is QueryContext's or
// Close's.
func execBound(ctx context.Context, tx *sql.Tx, q string, args ...any) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}
