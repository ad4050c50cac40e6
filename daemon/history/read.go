package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

const runCols = `id, seq, command, args, started_at, ended_at, status, exit_code,
	git_branch, git_commit, ci, tasks, failed, cached, duration_ms, pid, proc_start`

type scanner interface{ Scan(dest ...any) error }

func scanRun(sc scanner) (*Run, error) {
	var (
		r       Run
		args    string
		started int64
		ended   sql.NullInt64
		exit    sql.NullInt64
		ci      int
	)
	err := sc.Scan(&r.ID, &r.Seq, &r.Command, &args, &started, &ended, &r.Status, &exit,
		&r.GitBranch, &r.GitCommit, &ci, &r.Tasks, &r.Failed, &r.Cached, &r.DurationMs, &r.PID, &r.ProcStart)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(args), &r.Args); err != nil {
		return nil, fmt.Errorf("decoding args of run %s: %w", r.ID, err)
	}
	r.StartedAt = fromNanos(started)
	if ended.Valid {
		t := fromNanos(ended.Int64)
		r.EndedAt = &t
	}
	if exit.Valid {
		c := int(exit.Int64)
		r.ExitCode = &c
	}
	r.CI = ci != 0
	settleRun(&r)
	return &r, nil
}

// execCols reads every column but the output; execColsOut adds it.
const execCols = `e.run_id, e.task_id, e.project, e.task, e.key, e.status, e.cache, e.exit_code,
	e.started_at, e.duration_ms, e.peak_rss_bytes, e.cpu_parallelism, e.blocked_by,
	e.timed_out, e.reason, e.output_truncated, e.cache_source, e.sandbox_violations`

const execColsOut = execCols + `, e.output`

func (s *Store) scanExec(sc scanner, withOutput bool, extra ...any) (*Execution, error) {
	var (
		e        Execution
		exit     sql.NullInt64
		started  int64
		blocked  sql.NullString
		timedOut int
		trunc    int
		out      []byte
		sandbox  sql.NullString
	)
	dest := []any{&e.RunID, &e.TaskID, &e.Project, &e.Task, &e.Key, &e.Status, &e.Cache, &exit,
		&started, &e.DurationMs, &e.PeakRSSBytes, &e.CPUParallelism, &blocked,
		&timedOut, &e.Reason, &trunc, &e.CacheSource, &sandbox}
	if withOutput {
		dest = append(dest, &out)
	}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	if exit.Valid {
		c := int(exit.Int64)
		e.ExitCode = &c
	}
	e.StartedAt = fromNanos(started)
	if blocked.Valid {
		if err := json.Unmarshal([]byte(blocked.String), &e.BlockedBy); err != nil {
			return nil, fmt.Errorf("decoding blockedBy of %s: %w", e.TaskID, err)
		}
	}
	if sandbox.Valid {
		if err := json.Unmarshal([]byte(sandbox.String), &e.SandboxViolations); err != nil {
			return nil, fmt.Errorf("decoding sandboxViolations of %s: %w", e.TaskID, err)
		}
	}
	e.TimedOut = timedOut != 0
	e.OutputTruncated = trunc != 0
	if len(out) > 0 {
		b, err := s.dec.DecodeAll(out, nil)
		if err != nil {
			return nil, fmt.Errorf("decoding output of %s: %w", e.TaskID, err)
		}
		e.Output = b
	}
	return &e, nil
}

func (s *Store) queryRun(ctx context.Context, what, query string, args ...any) (*Run, error) {
	return queryOne(ctx, s, what, func(row *sql.Row) (*Run, error) { return scanRun(row) }, query, args...)
}

// queryOne reads the one row query selects, with scan: no history yet,
// or no such row, is ErrNotFound, each error naming what was read.
func queryOne[T any](ctx context.Context, s *Store, what string, scan func(*sql.Row) (*T, error), query string, args ...any) (*T, error) {
	db, err := s.reader(ctx)
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	v, err := scan(db.QueryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return v, nil
}

func (s *Store) queryRuns(ctx context.Context, query string, args ...any) ([]Run, error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("reading runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("reading runs: %w", err)
		}
		out = append(out, *r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading runs: %w", err)
	}
	return out, nil
}

// ResolveRun finds a run by its whole id or a unique prefix of it (case
// insensitive). It returns an error wrapping ErrNotFound when nothing
// matches and an *AmbiguousError when several runs do.
func (s *Store) ResolveRun(ctx context.Context, idOrPrefix string) (*Run, error) {
	p := strings.ToLower(strings.TrimSpace(idOrPrefix))
	if p == "" {
		return nil, errors.New("resolving run: the run id is empty; give a whole run id or a unique prefix (vx last --list prints them)")
	}
	if len(p) > 12 || !isHex(p) {
		return nil, fmt.Errorf("no run %q (run ids are 12 hex digits): %w", idOrPrefix, ErrNotFound)
	}
	if len(p) == 12 {
		r, err := s.queryRun(ctx, fmt.Sprintf("run %s", p), `SELECT `+runCols+` FROM runs WHERE id = ?`, p)
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("no run %q: %w", p, ErrNotFound)
		}
		return r, err
	}
	db, err := s.reader(ctx)
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, fmt.Errorf("no run matches %q: %w", p, ErrNotFound)
	}
	// Every id with prefix p sorts in [p, p with its last digit + 1).
	upper := p[:len(p)-1] + string(p[len(p)-1]+1)
	rows, err := db.QueryContext(ctx, `SELECT id FROM runs WHERE id >= ? AND id < ? ORDER BY id LIMIT ?`, p, upper, maxMatches)
	if err != nil {
		return nil, fmt.Errorf("resolving run %q: %w", p, err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("resolving run %q: %w", p, err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("resolving run %q: %w", p, err)
	}
	switch len(ids) {
	case 0:
		return nil, fmt.Errorf("no run matches %q: %w", p, ErrNotFound)
	case 1:
		return s.queryRun(ctx, fmt.Sprintf("run %s", ids[0]), `SELECT `+runCols+` FROM runs WHERE id = ?`, ids[0])
	}
	return nil, &AmbiguousError{Prefix: p, Matches: ids}
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// LatestRun returns the most recently begun run.
func (s *Store) LatestRun(ctx context.Context) (*Run, error) {
	return s.queryRun(ctx, "latest run", `SELECT `+runCols+` FROM runs ORDER BY seq DESC LIMIT 1`)
}

// LatestFailedRun returns the most recent run whose status is failed.
func (s *Store) LatestFailedRun(ctx context.Context) (*Run, error) {
	return s.queryRun(ctx, "latest failed run",
		`SELECT `+runCols+` FROM runs WHERE status = ? ORDER BY seq DESC LIMIT 1`, RunFailed)
}

// PreviousRun returns the run begun just before run.
func (s *Store) PreviousRun(ctx context.Context, run *Run) (*Run, error) {
	return s.queryRun(ctx, fmt.Sprintf("run before %s", run.ID),
		`SELECT `+runCols+` FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT 1`, run.Seq)
}

// ListRuns returns up to limit runs, newest first, begun before beforeSeq
// (0 or less: from the newest). limit defaults to DefaultLimit and is
// clamped to MaxLimit.
func (s *Store) ListRuns(ctx context.Context, limit int, beforeSeq int64) ([]Run, error) {
	if beforeSeq <= 0 {
		beforeSeq = math.MaxInt64
	}
	return s.queryRuns(ctx, `SELECT `+runCols+` FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
		beforeSeq, clampLimit(limit))
}

func clampLimit(n int) int {
	switch {
	case n <= 0:
		return defaultLimit
	case n > MaxLimit:
		return MaxLimit
	}
	return n
}

// Executions returns a run's executions in the order they were recorded,
// outputs included.
func (s *Store) Executions(ctx context.Context, runID string) ([]Execution, error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	rows, err := s.runExecutions(ctx, db, runID, only{}, true)
	if err != nil {
		return nil, fmt.Errorf("reading executions of run %s: %w", runID, err)
	}
	var out []Execution
	for _, r := range rows {
		out = append(out, r.Execution)
	}
	return out, nil
}

// Execution returns the execution of taskID in a run (the last one recorded,
// should the run have recorded it twice).
func (s *Store) Execution(ctx context.Context, runID, taskID string) (*Execution, error) {
	what := fmt.Sprintf("%s in run %s", taskID, runID)
	db, err := s.reader(ctx)
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	rows, err := s.runExecutions(ctx, db, runID, only{taskID: taskID}, true)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return &rows[len(rows)-1].Execution, nil
}

// LatestExecution returns the most recent execution of taskID, whatever its
// status.
func (s *Store) LatestExecution(ctx context.Context, taskID string) (*Execution, error) {
	return s.firstOfTask(ctx, fmt.Sprintf("latest execution of %s", taskID), taskID, 0, nil)
}

// PreviousExecution returns the latest execution of taskID in a run before
// beforeSeq, preferring one that computed a key (not blocked, skipped or
// interrupted, key non-empty) and falling back to any.
func (s *Store) PreviousExecution(ctx context.Context, taskID string, beforeSeq int64) (*Execution, error) {
	if beforeSeq <= 0 {
		beforeSeq = math.MaxInt64
	}
	return s.firstOfTask(ctx, fmt.Sprintf("execution of %s before run #%d", taskID, beforeSeq), taskID, beforeSeq,
		func(e *Execution) bool {
			return e.Key != "" && e.Status != StatusBlocked && e.Status != statusSkipped && e.Status != statusInterrupted
		})
}

// firstOfTask answers the newest execution of task before run seq before
// that prefer matches (nil: any), else the newest.
func (s *Store) firstOfTask(ctx context.Context, what, task string, before int64, prefer func(*Execution) bool) (*Execution, error) {
	db, err := s.reader(ctx)
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	t, err := s.newTimeline(ctx, db, task, before, true)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	var first *Execution
	for {
		r, err := t.next(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", what, err)
		}
		if r == nil {
			break
		}
		if prefer == nil || prefer(&r.Execution) {
			return &r.Execution, nil
		}
		if first == nil {
			first = &r.Execution
		}
	}
	if first == nil {
		return nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return first, nil
}

// RecentExecutions returns executions newest first (by run, then in
// reverse recording order), narrowed by f. Outputs are not loaded: read one
// with Execution.
func (s *Store) RecentExecutions(ctx context.Context, f Filter) ([]ExecRow, error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	limit := clampLimit(f.Limit)
	var ids []string
	switch {
	case f.Project != "" && f.Task != "":
		ids = []string{f.Project + "#" + f.Task}
	case f.Project != "":
		ids, err = projectTasks(ctx, db, f.Project)
	default:
		return s.recentAll(ctx, db, f.Task, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("reading recent executions: %w", err)
	}
	return s.tasksRecent(ctx, db, ids, limit)
}

// Components returns the key components stored for a cache key.
func (s *Store) Components(ctx context.Context, key string) ([]byte, error) {
	db, err := s.reader(ctx)
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, fmt.Errorf("key components of %s: %w", key, ErrNotFound)
	}
	var z []byte
	err = db.QueryRowContext(ctx, `SELECT blob FROM components WHERE key = ?`, key).Scan(&z)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("key components of %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading key components of %s: %w", key, err)
	}
	b, err := s.dec.DecodeAll(z, nil)
	if err != nil {
		return nil, fmt.Errorf("decoding key components of %s: %w", key, err)
	}
	return b, nil
}

// Counts returns how many runs and executions the history holds.
func (s *Store) Counts(ctx context.Context) (runs, executions int64, err error) {
	db, err := s.reader(ctx)
	if err != nil || db == nil {
		return 0, 0, err
	}
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM runs),
		(SELECT count(*) FROM executions) + (SELECT coalesce(sum(n), 0) FROM run_hits)`).
		Scan(&runs, &executions)
	if err != nil {
		return 0, 0, fmt.Errorf("counting history: %w", err)
	}
	return runs, executions, nil
}

// where renders the project/task narrowing of f over the table alias t,
// whose columns task_id, project and task both executions and task_stats
// carry.
func (f Filter) where(t string) (string, []any) {
	switch {
	case f.Project != "" && f.Task != "":
		return "WHERE " + t + ".task_id = ?", []any{f.Project + "#" + f.Task}
	case f.Project != "":
		return "WHERE " + t + ".project = ?", []any{f.Project}
	case f.Task != "":
		return "WHERE " + t + ".task = ?", []any{f.Task}
	}
	return "", []any{}
}
