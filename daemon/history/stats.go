package history

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// percentile is the nearest-rank p-th percentile (p in 1..100) of sorted.
func percentile(sorted []int64, p int) int64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := (p*n + 99) / 100 // ceil(p*n/100) without float rounding
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

// recentDurations returns the durations of a task's most recent
// PercentileWindow executed runs, sorted ascending.
func recentDurations(ctx context.Context, stmt *sql.Stmt, taskID string) ([]int64, error) {
	rows, err := stmt.QueryContext(ctx, taskID, PercentileWindow)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	d := make([]int64, 0, 32)
	for rows.Next() {
		var ms int64
		if err := rows.Scan(&ms); err != nil {
			return nil, err
		}
		d = append(d, ms)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(d)
	return d, nil
}

const durationsQuery = `SELECT duration_ms FROM executions
	WHERE task_id = ? AND ran = 1 ORDER BY run_seq DESC LIMIT ?`

// TaskStats returns per-task statistics, ordered by task id, narrowed by f
// (f.Limit caps the number of tasks; 0 means all). Counts, rates, failure
// mode, flakiness and maxima cover every recorded execution; percentiles
// cover the most recent PercentileWindow executed runs.
func (s *Store) TaskStats(ctx context.Context, f Filter) ([]TaskStat, error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	where, args := "", []any{}
	switch {
	case f.Project != "" && f.Task != "":
		where, args = "WHERE t.task_id = ?", append(args, f.Project+"#"+f.Task)
	case f.Project != "":
		where, args = "WHERE t.project = ?", append(args, f.Project)
	case f.Task != "":
		where, args = "WHERE t.task = ?", append(args, f.Task)
	}
	limit := ""
	if f.Limit > 0 {
		limit = " LIMIT ?"
		args = append(args, f.Limit)
	}
	// One snapshot for the summary rows and their durations.
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("reading task stats: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT t.task_id, t.project, t.task, t.count, t.ran, t.passed, t.failed,
		t.timed_out, t.blocked, t.interrupted, t.hits, t.cacheable, t.max_rss, t.max_cpu, t.last_status, t.last_run_id,
		(SELECT count(*) FROM flaky_keys k WHERE k.task_id = t.task_id)
		FROM task_stats t `+where+` ORDER BY t.task_id`+limit, args...)
	if err != nil {
		return nil, fmt.Errorf("reading task stats: %w", err)
	}
	var out []TaskStat
	for rows.Next() {
		var (
			t                                               TaskStat
			passed, failed, timedOut, blocked, interrupted int
		)
		err := rows.Scan(&t.TaskID, &t.Project, &t.Task, &t.Count, &t.Executed, &passed, &failed,
			&timedOut, &blocked, &interrupted, &t.Hits, &t.Cacheable, &t.MaxPeakRSSBytes, &t.MaxCPUParallelism,
			&t.LastStatus, &t.LastRunID, &t.FlakyKeys)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("reading task stats: %w", err)
		}
		t.Attempts = passed + failed + timedOut
		if t.Attempts > 0 {
			t.SuccessRate = float64(passed) / float64(t.Attempts)
		}
		if t.Cacheable > 0 {
			t.HitRate = float64(t.Hits) / float64(t.Cacheable)
		}
		// Ties go to the more telling status, in this order.
		for _, m := range []struct {
			status string
			n      int
		}{{StatusFailed, failed}, {StatusTimedOut, timedOut}, {StatusBlocked, blocked}, {StatusInterrupted, interrupted}} {
			if m.n > t.FailureCount {
				t.FailureMode, t.FailureCount = m.status, m.n
			}
		}
		t.Flaky = t.FlakyKeys > 0
		out = append(out, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading task stats: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, durationsQuery)
	if err != nil {
		return nil, fmt.Errorf("reading task durations: %w", err)
	}
	defer stmt.Close()
	for i := range out {
		if out[i].Executed == 0 {
			continue
		}
		d, err := recentDurations(ctx, stmt, out[i].TaskID)
		if err != nil {
			return nil, fmt.Errorf("reading durations of %s: %w", out[i].TaskID, err)
		}
		out[i].P50Ms, out[i].P99Ms = percentile(d, 50), percentile(d, 99)
	}
	return out, nil
}

// FlakyTasks returns the ids of tasks for which one and the same cache key
// produced both a pass and a failure, sorted.
func (s *Store) FlakyTasks(ctx context.Context) ([]string, error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT task_id FROM flaky_keys ORDER BY task_id`)
	if err != nil {
		return nil, fmt.Errorf("reading flaky tasks: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("reading flaky tasks: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading flaky tasks: %w", err)
	}
	return out, nil
}

// P50s returns, per task id, the p50 duration of its recent executed runs;
// tasks that never ran are absent.
func (s *Store) P50s(ctx context.Context, taskIDs []string) (map[string]int64, error) {
	out := make(map[string]int64, len(taskIDs))
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return out, err
	}
	stmt, err := db.PrepareContext(ctx, durationsQuery)
	if err != nil {
		return nil, fmt.Errorf("reading task durations: %w", err)
	}
	defer stmt.Close()
	for _, id := range taskIDs {
		d, err := recentDurations(ctx, stmt, id)
		if err != nil {
			return nil, fmt.Errorf("reading durations of %s: %w", id, err)
		}
		if len(d) > 0 {
			out[id] = percentile(d, 50)
		}
	}
	return out, nil
}

// CacheActivity counts the runs begun since since, and their executions and
// cache hits. With a project, only that project's executions count, and only
// runs that executed one of its tasks.
func (s *Store) CacheActivity(ctx context.Context, since time.Time, project string) (runs int, executions int, hits int, err error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return 0, 0, 0, err
	}
	if project == "" {
		err = db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(executions), 0), coalesce(sum(hits), 0)
			FROM runs WHERE started_at >= ?`, nanos(since)).Scan(&runs, &executions, &hits)
	} else {
		err = db.QueryRowContext(ctx, `SELECT count(DISTINCT e.run_seq), count(*), coalesce(sum(e.cache = 'hit'), 0)
			FROM runs r JOIN executions e ON e.run_seq = r.seq AND e.project = ?
			WHERE r.started_at >= ?`, project, nanos(since)).Scan(&runs, &executions, &hits)
	}
	if err != nil {
		return 0, 0, 0, fmt.Errorf("reading cache activity: %w", err)
	}
	return runs, executions, hits, nil
}

// Trends returns up to limit hour or day buckets (local time) that hold
// runs, newest first. limit defaults to DefaultLimit and is clamped to
// MaxLimit.
func (s *Store) Trends(ctx context.Context, bucket string, limit int) ([]Bucket, error) {
	var trunc func(time.Time) time.Time
	switch bucket {
	case "hour":
		trunc = func(t time.Time) time.Time { return t.Truncate(time.Hour) }
	case "day":
		trunc = func(t time.Time) time.Time {
			y, m, d := t.Date()
			return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
		}
	default:
		return nil, fmt.Errorf("reading trends: bucket %q is neither hour nor day", bucket)
	}
	limit = clampLimit(limit)
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT started_at, status, ended_at IS NOT NULL, duration_ms, executions, hits
		FROM runs ORDER BY started_at DESC`)
	if err != nil {
		return nil, fmt.Errorf("reading trends: %w", err)
	}
	defer rows.Close()
	var (
		out       []Bucket
		durations [][]int64
	)
	for rows.Next() {
		var (
			started          int64
			status           string
			finished         bool
			dur, execs, hits int64
		)
		if err := rows.Scan(&started, &status, &finished, &dur, &execs, &hits); err != nil {
			return nil, fmt.Errorf("reading trends: %w", err)
		}
		start := trunc(fromNanos(started))
		if len(out) == 0 || !out[len(out)-1].Start.Equal(start) {
			if len(out) == limit {
				break // rows come newest first: the buckets asked for are complete
			}
			out = append(out, Bucket{Start: start})
			durations = append(durations, nil)
		}
		b := &out[len(out)-1]
		b.Runs++
		if status == RunFailed {
			b.FailedRuns++
		}
		b.Executions += int(execs)
		b.Hits += int(hits)
		if finished {
			durations[len(out)-1] = append(durations[len(out)-1], dur)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading trends: %w", err)
	}
	for i := range out {
		slices.Sort(durations[i])
		out[i].P50DurationMs = percentile(durations[i], 50)
	}
	return out, nil
}
