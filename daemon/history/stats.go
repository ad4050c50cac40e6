package history

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
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

// decodeWindow reads a task's recent executed durations, oldest first,
// stored as unsigned varints.
func decodeWindow(b []byte) []int64 {
	d := make([]int64, 0, percentileWindow+1)
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			break
		}
		d = append(d, int64(v))
		b = b[n:]
	}
	return d
}

func encodeWindow(d []int64) []byte {
	b := make([]byte, 0, 2*len(d))
	for _, v := range d {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b
}

// TaskStats returns per-task statistics, ordered by task id, narrowed by f
// (f.Limit caps the number of tasks; 0 means all). Counts, rates, failure
// mode, flakiness and maxima cover every recorded execution; percentiles
// cover the most recent percentileWindow executed runs. It reads one row per
// task: RecordExecutions keeps the numbers.
func (s *Store) TaskStats(ctx context.Context, f Filter) ([]TaskStat, error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	where, args := f.where("t")
	if len(f.TaskIDs) > 0 {
		in := strings.Repeat("?,", len(f.TaskIDs))
		cond := "t.task_id IN (" + in[:len(in)-1] + ")"
		if where == "" {
			where = "WHERE " + cond
		} else {
			where += " AND " + cond
		}
		for _, id := range f.TaskIDs {
			args = append(args, id)
		}
	}
	limit := ""
	if f.Limit > 0 {
		limit = " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := db.QueryContext(ctx, `SELECT t.task_id, t.project, t.task, t.count, t.ran, t.passed, t.failed,
		t.timed_out, t.blocked, t.interrupted, t.hits, t.cacheable, t.max_rss, t.max_cpu, t.last_status, t.last_run_id,
		t.p50_ms, t.p99_ms, (SELECT count(*) FROM flaky_keys k WHERE k.task_id = t.task_id), t.last_seq, t.hit_seq, t.hit_run_id
		FROM task_stats t `+where+` ORDER BY t.task_id`+limit, args...)
	if err != nil {
		return nil, fmt.Errorf("reading task stats: %w", err)
	}
	defer rows.Close()
	adjust, err := s.unfoldedHits(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("reading task stats: %w", err)
	}
	out, ties, err := scanTaskStats(rows, adjust)
	if err != nil {
		return nil, err
	}
	rows.Close()
	for _, i := range ties {
		// A hit and a row of the task in one run: the later one is last.
		e, err := s.LatestExecution(ctx, out[i].TaskID)
		if err != nil {
			return nil, fmt.Errorf("reading task stats: %w", err)
		}
		out[i].LastStatus, out[i].LastRunID = e.Status, e.RunID
	}
	return out, nil
}

// scanTaskStats reads task_stats rows into TaskStats with the plain hits
// not yet folded into them (adjust); ties are the indexes of tasks whose
// last hit and last row are of one run (TaskStats settles which is last).
func scanTaskStats(rows *sql.Rows, adjust map[string]*hitAdjust) (out []TaskStat, ties []int, err error) {
	for rows.Next() {
		var (
			t                                              TaskStat
			passed, failed, timedOut, blocked, interrupted int
			lastSeq, hitSeq                                int64
			hitRun                                         string
		)
		err := rows.Scan(&t.TaskID, &t.Project, &t.Task, &t.Count, &t.Executed, &passed, &failed,
			&timedOut, &blocked, &interrupted, &t.Hits, &t.Cacheable, &t.MaxPeakRSSBytes, &t.MaxCPUParallelism,
			&t.LastStatus, &t.LastRunID, &t.P50Ms, &t.P99Ms, &t.FlakyKeys, &lastSeq, &hitSeq, &hitRun)
		if err != nil {
			return nil, nil, fmt.Errorf("reading task stats: %w", err)
		}
		if withHits(&t, &passed, adjust[t.TaskID], lastSeq, hitSeq, hitRun) {
			ties = append(ties, len(out))
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
		}{{StatusFailed, failed}, {StatusTimedOut, timedOut}, {StatusBlocked, blocked}, {statusInterrupted, interrupted}} {
			if m.n > t.FailureCount {
				t.FailureMode, t.FailureCount = m.status, m.n
			}
		}
		t.Flaky = t.FlakyKeys > 0
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading task stats: %w", err)
	}
	return out, ties, nil
}

// withHits adds to t the plain hits (hitset.go) task_stats does not count
// yet (a) and makes the last execution a hit when one is newer than the
// last row (lastSeq): the newest of the folded hits (hitSeq, hitRun) and
// a's. It reports a hit and a row in the same run, which only the run's
// order tells apart.
func withHits(t *TaskStat, passed *int, a *hitAdjust, lastSeq, hitSeq int64, hitRun string) (tie bool) {
	if a != nil {
		t.Count, t.Hits, t.Cacheable = t.Count+a.n, t.Hits+a.n, t.Cacheable+a.n
		*passed += a.n
		if a.seq > hitSeq {
			hitSeq, hitRun = a.seq, a.runID
		}
	}
	switch {
	case hitSeq > lastSeq:
		t.LastStatus, t.LastRunID = StatusPassed, hitRun
	case hitSeq > 0 && hitSeq == lastSeq:
		return true
	}
	return false
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
	stmt, err := db.PrepareContext(ctx, `SELECT p50_ms FROM task_stats WHERE task_id = ? AND ran > 0`)
	if err != nil {
		return nil, fmt.Errorf("reading task durations: %w", err)
	}
	defer stmt.Close()
	for _, id := range taskIDs {
		var p50 int64
		err := stmt.QueryRowContext(ctx, id).Scan(&p50)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading p50 of %s: %w", id, err)
		}
		out[id] = p50
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
		// Runs started since since all have seq >= the least of their seqs;
		// the started_at test drops older runs that a clock step gave a
		// later seq.
		runs, executions, hits, err = s.cacheActivityOfProject(ctx, db, since, project)
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
	// Bucket by bucket, newest first: each is a range of the covering
	// runs_started index, so the cost follows the buckets asked for, not
	// the length of the history.
	var out []Bucket
	cursor := int64(math.MaxInt64)
	for len(out) < limit {
		var newest int64
		err := db.QueryRowContext(ctx, `SELECT started_at FROM runs WHERE started_at < ? ORDER BY started_at DESC LIMIT 1`,
			cursor).Scan(&newest)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading trends: %w", err)
		}
		b := Bucket{Start: trunc(fromNanos(newest))}
		lo := nanos(b.Start)
		var finished int64
		err = db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(status = 'failed'), 0),
			coalesce(sum(executions), 0), coalesce(sum(hits), 0), count(ended_at)
			FROM runs WHERE started_at >= ? AND started_at < ?`, lo, cursor).
			Scan(&b.Runs, &b.FailedRuns, &b.Executions, &b.Hits, &finished)
		if err != nil {
			return nil, fmt.Errorf("reading trends: %w", err)
		}
		if finished > 0 {
			err = db.QueryRowContext(ctx, `SELECT duration_ms FROM runs
				WHERE started_at >= ? AND started_at < ? AND ended_at IS NOT NULL
				ORDER BY duration_ms LIMIT 1 OFFSET ?`, lo, cursor, (finished*50+99)/100-1).Scan(&b.P50DurationMs)
			if err != nil {
				return nil, fmt.Errorf("reading trends: %w", err)
			}
		}
		out = append(out, b)
		cursor = lo
	}
	return out, nil
}
