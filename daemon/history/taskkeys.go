package history

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// task_keys remembers, per task and cache key, whether an attempt with that
// key passed and whether one failed or timed out: all the flaky check asks.
// It replaces an index of every execution by key, which gave each
// execution, cache hits included, one more index entry at a random place
// (a dirty page per task and run); a hit of a key already known to pass
// writes nothing here.
const taskKeysTable = `CREATE TABLE IF NOT EXISTS task_keys (
		task_id TEXT    NOT NULL,
		key     TEXT    NOT NULL,
		passed  INTEGER NOT NULL,
		failed  INTEGER NOT NULL,
		PRIMARY KEY (task_id, key)
	) WITHOUT ROWID`

// stepTaskKeys (schema 5 → 6) fills task_keys from the executions recorded
// so far and drops executions_key, which only the flaky check read, and
// executions_project (see project.go).
func stepTaskKeys(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		taskKeysTable,
		`INSERT INTO task_keys (task_id, key, passed, failed)
			SELECT task_id, key, max(status = '` + StatusPassed + `'), max(status IN ('` + StatusFailed + `', '` + StatusTimedOut + `'))
			FROM executions WHERE key != '' AND status IN ('` + StatusPassed + `', '` + StatusFailed + `', '` + StatusTimedOut + `')
			GROUP BY task_id, key
			ON CONFLICT (task_id, key) DO UPDATE SET passed = max(passed, excluded.passed), failed = max(failed, excluded.failed)`,
		`DROP INDEX IF EXISTS executions_key`,
		`DROP INDEX IF EXISTS executions_project`, // project.go reads by task
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("keeping task keys: %w", err)
		}
	}
	return nil
}

// taskKey is a task and one of its cache keys.
type taskKey [2]string

// readTaskKeys answers the flags of the (task, key) pairs asked, 400
// pairs a query, each looked up by task_keys' primary key.
func readTaskKeys(ctx context.Context, tx *sql.Tx, pairs []taskKey) (passed, failed map[taskKey]bool, err error) {
	passed, failed = map[taskKey]bool{}, map[taskKey]bool{}
	for start := 0; start < len(pairs); start += 400 {
		chunk := pairs[start:min(start+400, len(pairs))]
		args := make([]any, 0, 2*len(chunk))
		for _, p := range chunk {
			args = append(args, p[0], p[1])
		}
		q := `WITH want(t, k) AS (VALUES (?, ?)` + strings.Repeat(", (?, ?)", len(chunk)-1) + `)
			SELECT w.t, w.k, tk.passed, tk.failed FROM want w JOIN task_keys tk ON tk.task_id = w.t AND tk.key = w.k`
		rows, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, nil, err
		}
		for rows.Next() {
			var p taskKey
			var ok, bad bool
			if err := rows.Scan(&p[0], &p[1], &ok, &bad); err != nil {
				rows.Close()
				return nil, nil, err
			}
			passed[p], failed[p] = ok, bad
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	return passed, failed, nil
}
