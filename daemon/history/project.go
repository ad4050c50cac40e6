package history

import (
	"context"
	"database/sql"
	"time"
)

// Per-project reads without an index of executions by project. Every
// execution used to add an entry to executions(project, run_seq) at a
// random place (a dirty page per task per run); a project's executions
// are now read task by task along each task's chain (chain.go), its
// tasks listed by task_stats.

// projectTasks lists the task ids recorded for project.
func projectTasks(ctx context.Context, db *sql.DB, project string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT task_id FROM task_stats WHERE project = ? ORDER BY task_id`, project)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// cacheActivityOfProject is CacheActivity narrowed to a project: runs begun
// since since that executed one of its tasks, its executions in them and
// their hits.
func (s *Store) cacheActivityOfProject(ctx context.Context, db *sql.DB, since time.Time, project string) (runs, executions, hits int, err error) {
	ids, err := projectTasks(ctx, db, project)
	if err != nil {
		return 0, 0, 0, err
	}
	// Runs started since since all have seq >= the least of their seqs;
	// the started_at test drops older runs that a clock step gave a later
	// seq.
	var minSeq int64
	if err := db.QueryRowContext(ctx, `SELECT coalesce(min(seq), 1 << 62) FROM runs INDEXED BY runs_started WHERE started_at >= ?`,
		nanos(since)).Scan(&minSeq); err != nil {
		return 0, 0, 0, err
	}
	seqs := map[int64]bool{}
	for _, task := range ids {
		rows, err := db.QueryContext(ctx, chainFrom("e.run_seq >= ?2", "")+` SELECT e.run_seq, e.cache = 'hit'
			FROM chain c CROSS JOIN executions e ON e.id = c.id WHERE e.run_started_at >= ?3`, task, minSeq, nanos(since))
		if err != nil {
			return 0, 0, 0, err
		}
		for rows.Next() {
			var seq int64
			var hit bool
			if err := rows.Scan(&seq, &hit); err != nil {
				rows.Close()
				return 0, 0, 0, err
			}
			seqs[seq] = true
			executions++
			if hit {
				hits++
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return 0, 0, 0, err
		}
	}
	plain, err := s.hitsSince(ctx, db, minSeq, nanos(since), project)
	if err != nil {
		return 0, 0, 0, err
	}
	for seq, n := range plain {
		if n > 0 {
			seqs[seq] = true
			executions += n
			hits += n
		}
	}
	return len(seqs), executions, hits, nil
}
