package history

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
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

// recentOfProject is RecentExecutions narrowed to a project: the newest
// (run, id) of each of its tasks from its chain, merged newest first and
// cut at limit, then those rows. Once limit places are known, a task's
// walk stops at the oldest of them: nothing older can be in the answer.
func (s *Store) recentOfProject(ctx context.Context, db *sql.DB, project string, limit int) ([]ExecRow, error) {
	ids, err := projectTasks(ctx, db, project)
	if err != nil {
		return nil, fmt.Errorf("reading recent executions: %w", err)
	}
	newestFirst := func(a, b place) int {
		if a.after(b) {
			return -1
		}
		return 1
	}
	var all []place
	cut := place{-1, -1}
	for _, task := range ids {
		rows, err := db.QueryContext(ctx, chainFrom("(e.run_seq, e.id) > (?3, ?4)", "?2")+` SELECT seq, id FROM chain`,
			task, limit, cut.seq, cut.id)
		if err != nil {
			return nil, fmt.Errorf("reading recent executions: %w", err)
		}
		for rows.Next() {
			var p place
			if err := rows.Scan(&p.seq, &p.id); err != nil {
				rows.Close()
				return nil, fmt.Errorf("reading recent executions: %w", err)
			}
			all = append(all, p)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("reading recent executions: %w", err)
		}
		if len(all) >= limit {
			slices.SortFunc(all, newestFirst)
			all = all[:limit]
			cut = all[limit-1]
		}
	}
	slices.SortFunc(all, newestFirst)
	all = all[:min(limit, len(all))]
	if len(all) == 0 {
		return nil, nil
	}
	args := make([]any, len(all))
	at := make(map[int64]int, len(all))
	for i, p := range all {
		args[i], at[p.id] = p.id, i
	}
	rows, err := db.QueryContext(ctx, `SELECT `+execCols+`, e.run_started_at, e.run_seq, e.id
		FROM executions e WHERE e.id IN (?`+strings.Repeat(",?", len(all)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("reading recent executions: %w", err)
	}
	defer rows.Close()
	out := make([]ExecRow, len(all))
	for rows.Next() {
		var started, id int64
		var row ExecRow
		e, err := s.scanExec(rows, false, &started, &row.RunSeq, &id)
		if err != nil {
			return nil, fmt.Errorf("reading recent executions: %w", err)
		}
		row.Execution = *e
		row.RunStartedAt = fromNanos(started)
		out[at[id]] = row
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading recent executions: %w", err)
	}
	return out, nil
}

// cacheActivityOfProject is CacheActivity narrowed to a project: runs begun
// since since that executed one of its tasks, its executions in them and
// their hits.
func cacheActivityOfProject(ctx context.Context, db *sql.DB, since time.Time, project string) (runs, executions, hits int, err error) {
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
	return len(seqs), executions, hits, nil
}
