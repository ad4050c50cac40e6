package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The batched write of RecordExecutions. A fully cached run of 1,000 tasks
// records 1,000 executions: written one statement at a time (an insert, a
// read of the task's window, a stats upsert and a flaky check each) the
// statements' own overhead was most of a no-op run's history write. Here
// the reads come first, one query per chunk of tasks or keys, then the
// rows go in as multi-row statements; the outcome is the one the
// row-at-a-time write gave, in slice order.

// batchRows bounds the rows of one multi-row statement (24 parameters a
// row stays well under SQLite's variable limit).
const batchRows = 200

// runCount is a run the batch records into: its place, its executions
// recorded before the batch (base) and the batch's.
type runCount struct{ seq, started, base, execs, hits int64 }

// execRow is one execution with what the batch computed for it.
type execRow struct {
	e        *Execution
	rc       *runCount
	id       int64 // 0 for a plain hit (hitset.go), which is no row
	pos      int64 // its place among the run's executions
	prev     int64 // the task's execution before this one (chain.go), 0 for none
	ran      bool
	attempt  bool
	recent   []byte
	p50, p99 int64
}

func (s *Store) recordBatch(ctx context.Context, tx *sql.Tx, execs []Execution) error {
	runs, err := batchRuns(ctx, tx, execs)
	if err != nil {
		return err
	}
	windows, err := batchWindows(ctx, tx, execs)
	if err != nil {
		return err
	}
	cur, err := s.currentOf(ctx, tx, execs)
	if err != nil {
		return err
	}
	known := cur.known()
	heads, lastExecs, err := batchHeads(ctx, tx, execs, known)
	if err != nil {
		return err
	}
	flaky, err := batchFlaky(ctx, tx, execs, lastExecs, known)
	if err != nil {
		return err
	}
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM executions`).Scan(&last); err != nil {
		return fmt.Errorf("recording executions: %w", err)
	}
	all := make([]execRow, len(execs))
	var rows []execRow
	for i := range execs {
		e := &execs[i]
		rc := runs[e.RunID]
		r := &all[i]
		r.e, r.rc, r.pos = e, rc, rc.base+rc.execs
		rc.execs++
		hit := e.Cache == CacheHit
		if hit {
			rc.hits++
		}
		r.attempt = e.Status == StatusPassed || e.Status == StatusFailed || e.Status == StatusTimedOut
		r.ran = r.attempt && !hit
		if plainHit(e) {
			continue
		}
		// The id SQLite would give: one more than the largest, the table
		// being written only inside this (immediate) transaction.
		last++
		r.id = last
		if r.ran {
			r.recent, r.p50, r.p99 = movedWindow(windows, e)
		}
		rows = append(rows, *r)
	}
	if err := s.recordHits(ctx, tx, all, heads, cur); err != nil {
		return err
	}
	if err := chainRows(ctx, tx, heads, rows); err != nil {
		return err
	}
	for start := 0; start < len(rows); start += batchRows {
		chunk := rows[start:min(start+batchRows, len(rows))]
		if err := s.insertExecutions(ctx, tx, chunk); err != nil {
			return err
		}
		if err := upsertStats(ctx, tx, chunk); err != nil {
			return err
		}
	}
	if err := flaky.record(ctx, tx, all); err != nil {
		return err
	}
	for id, rc := range runs {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET executions = executions + ?, hits = hits + ? WHERE id = ?`,
			rc.execs, rc.hits, id); err != nil {
			return fmt.Errorf("recording executions of run %s: %w", id, err)
		}
	}
	return nil
}

// movedWindow is the window of task e.TaskID with e's duration added,
// and its percentiles; windows keeps the moved window for the batch's
// next execution of the task.
func movedWindow(windows map[string][]byte, e *Execution) (recent []byte, p50, p99 int64) {
	d := decodeWindow(windows[e.TaskID])
	d = append(d, max(e.DurationMs, 0))
	if len(d) > percentileWindow {
		d = d[len(d)-percentileWindow:]
	}
	recent = encodeWindow(d)
	windows[e.TaskID] = recent
	slices.Sort(d)
	return recent, percentile(d, 50), percentile(d, 99)
}

// batchRuns reads the seq and start of every run the executions belong to.
func batchRuns(ctx context.Context, tx *sql.Tx, execs []Execution) (map[string]*runCount, error) {
	runs := map[string]*runCount{}
	for i := range execs {
		e := &execs[i]
		if runs[e.RunID] != nil {
			continue
		}
		rc := &runCount{}
		err := tx.QueryRowContext(ctx, `SELECT seq, started_at, executions FROM runs WHERE id = ?`, e.RunID).Scan(&rc.seq, &rc.started, &rc.base)
		if err == sql.ErrNoRows {
			return nil, fmt.Errorf("recording execution of %s: run %q: %w (begin the run first)", e.TaskID, e.RunID, ErrNotFound)
		} else if err != nil {
			return nil, fmt.Errorf("recording execution of %s: %w", e.TaskID, err)
		}
		runs[e.RunID] = rc
	}
	return runs, nil
}

// inChunks calls query with up to 500 distinct values at a time, as the
// placeholders "?,?,…" and their arguments.
func inChunks(values []string, query func(placeholders string, args []any) error) error {
	for start := 0; start < len(values); start += 500 {
		chunk := values[start:min(start+500, len(values))]
		args := make([]any, len(chunk))
		for i, v := range chunk {
			args[i] = v
		}
		if err := query("?"+strings.Repeat(",?", len(chunk)-1), args); err != nil {
			return err
		}
	}
	return nil
}

func distinct(execs []Execution, pick func(e *Execution) (string, bool)) []string {
	seen := map[string]bool{}
	var out []string
	for i := range execs {
		if v, ok := pick(&execs[i]); ok && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// batchWindows reads the recent-durations window of every task the batch
// has an execution of that ran (the only ones that move a window).
func batchWindows(ctx context.Context, tx *sql.Tx, execs []Execution) (map[string][]byte, error) {
	ids := distinct(execs, func(e *Execution) (string, bool) {
		return e.TaskID, isAttempt(e.Status) && e.Cache != CacheHit
	})
	out := make(map[string][]byte, len(ids))
	err := inChunks(ids, func(ph string, args []any) error {
		rows, err := tx.QueryContext(ctx, `SELECT task_id, recent FROM task_stats WHERE task_id IN (`+ph+`)`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var recent []byte
			if err := rows.Scan(&id, &recent); err != nil {
				return err
			}
			out[id] = recent
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("recording stats: %w", err)
	}
	return out, nil
}

func (s *Store) insertExecutions(ctx context.Context, tx *sql.Tx, chunk []execRow) error {
	const cols = 25
	args := make([]any, 0, cols*len(chunk))
	for _, r := range chunk {
		e := r.e
		var exit any
		if e.ExitCode != nil {
			exit = *e.ExitCode
		}
		var blocked any
		if len(e.BlockedBy) > 0 {
			b, err := json.Marshal(e.BlockedBy)
			if err != nil {
				return fmt.Errorf("recording execution of %s: %w", e.TaskID, err)
			}
			blocked = string(b)
		}
		var out any
		if len(e.Output) > 0 {
			out = s.enc.EncodeAll(e.Output, nil)
		}
		args = append(args, r.id, e.RunID, r.rc.seq, r.rc.started, e.TaskID, e.Project, e.Task, e.Key, e.Status, e.Cache,
			boolInt(r.ran), exit, nanos(e.StartedAt), e.DurationMs, e.PeakRSSBytes, e.CPUParallelism, blocked,
			boolInt(e.TimedOut), e.Reason, boolInt(e.OutputTruncated), e.CacheSource, out, sandboxJSON(e.SandboxViolations), nullID(r.prev), r.pos)
	}
	q := `INSERT INTO executions
		(id, run_id, run_seq, run_started_at, task_id, project, task, key, status, cache, ran, exit_code, started_at, duration_ms,
		 peak_rss_bytes, cpu_parallelism, blocked_by, timed_out, reason, output_truncated, cache_source, output,
		 sandbox_violations, prev_id, pos)
		VALUES ` + valuesList(cols, len(chunk))
	if err := execBound(ctx, tx, q, args...); err != nil {
		return fmt.Errorf("recording executions of %s…: %w", chunk[0].e.TaskID, err)
	}
	return nil
}

// upsertStats folds a chunk of executions into task_stats, row by row in
// order (SQLite applies a multi-row upsert one row at a time).
func upsertStats(ctx context.Context, tx *sql.Tx, chunk []execRow) error {
	const cols = 22
	args := make([]any, 0, cols*len(chunk))
	for _, r := range chunk {
		e := r.e
		args = append(args, e.TaskID, e.Project, e.Task, boolInt(r.ran),
			boolInt(e.Status == StatusPassed), boolInt(e.Status == StatusFailed), boolInt(e.Status == StatusTimedOut),
			boolInt(e.Status == StatusBlocked), boolInt(e.Status == statusInterrupted),
			boolInt(e.Cache == CacheHit), boolInt(e.Cache != CacheOff), e.PeakRSSBytes, e.CPUParallelism,
			r.rc.seq, r.id, e.Status, e.RunID, e.Key, r.p50, r.p99, r.recent)
	}
	q := `INSERT INTO task_stats
		(task_id, project, task, count, ran, passed, failed, timed_out, blocked, interrupted, hits, cacheable,
		 max_rss, max_cpu, last_seq, last_id, last_status, last_run_id, last_key, p50_ms, p99_ms, recent)
		VALUES ` + valuesListCount(len(chunk)) + `
		ON CONFLICT (task_id) DO UPDATE SET
			count = count + 1,
			ran = ran + excluded.ran,
			passed = passed + excluded.passed,
			failed = failed + excluded.failed,
			timed_out = timed_out + excluded.timed_out,
			blocked = blocked + excluded.blocked,
			interrupted = interrupted + excluded.interrupted,
			hits = hits + excluded.hits,
			cacheable = cacheable + excluded.cacheable,
			max_rss = max(max_rss, excluded.max_rss),
			max_cpu = max(max_cpu, excluded.max_cpu),
			last_status = CASE WHEN (excluded.last_seq, excluded.last_id) > (last_seq, last_id) THEN excluded.last_status ELSE last_status END,
			last_run_id = CASE WHEN (excluded.last_seq, excluded.last_id) > (last_seq, last_id) THEN excluded.last_run_id ELSE last_run_id END,
			last_key = CASE WHEN (excluded.last_seq, excluded.last_id) > (last_seq, last_id) THEN excluded.last_key ELSE last_key END,
			last_id = CASE WHEN (excluded.last_seq, excluded.last_id) > (last_seq, last_id) THEN excluded.last_id ELSE last_id END,
			last_seq = max(last_seq, excluded.last_seq),
			p50_ms = CASE WHEN excluded.ran = 1 THEN excluded.p50_ms ELSE p50_ms END,
			p99_ms = CASE WHEN excluded.ran = 1 THEN excluded.p99_ms ELSE p99_ms END,
			recent = CASE WHEN excluded.ran = 1 THEN excluded.recent ELSE recent END`
	if err := execBound(ctx, tx, q, args...); err != nil {
		return fmt.Errorf("recording stats of %s…: %w", chunk[0].e.TaskID, err)
	}
	return nil
}

// valuesList is "(?,…),(?,…)…": rows groups of cols placeholders.
func valuesList(cols, rows int) string {
	one := "(?" + strings.Repeat(",?", cols-1) + ")"
	return one + strings.Repeat(","+one, rows-1)
}

// valuesListCount is the task_stats rows: count is the literal 1.
func valuesListCount(rows int) string {
	one := "(?,?,?,1" + strings.Repeat(",?", 18) + ")"
	return one + strings.Repeat(","+one, rows-1)
}

// flakySeen is what the history held before the batch, from task_keys:
// the (task, key) pairs the batch attempts that passed, and those that
// failed or timed out.
type flakySeen struct {
	passed, failed map[taskKey]bool
}

// batchFlaky reads task_keys for every (task, key) the batch attempts,
// but those the batch only passes whose task's last execution passed with
// the same key: that execution's recording set the pair's passed flag
// (flags are only ever set), and a pass of a pair known to pass writes
// nothing, nor marks it flaky (had it failed too, the later of the two
// marked it then). A fully cached run is all such pairs: its 1,000
// lookups were a fifth of its history write.
//
// A plain hit of a pair of the current hit set (inCurrent) is such a pass
// too: the set's first run recorded it.
func batchFlaky(ctx context.Context, tx *sql.Tx, execs []Execution, last map[string]lastExec, inCurrent []bool) (*flakySeen, error) {
	onlyPasses := map[taskKey]bool{}
	var pairs []taskKey
	var inSet []taskKey
	for i := range execs {
		e := &execs[i]
		tk := taskKey{e.TaskID, e.Key}
		if inCurrent[i] {
			inSet = append(inSet, tk)
			continue
		}
		if e.Key == "" || !isAttempt(e.Status) {
			continue
		}
		pass, seen := onlyPasses[tk]
		if !seen {
			pairs = append(pairs, tk)
			pass = true
		}
		onlyPasses[tk] = pass && e.Status == StatusPassed
	}
	var read []taskKey
	known := map[taskKey]bool{}
	for _, tk := range pairs {
		if h, ok := last[tk[0]]; ok && onlyPasses[tk] && h.status == StatusPassed && h.key == tk[1] {
			known[tk] = true
			continue
		}
		read = append(read, tk)
	}
	passed, failed, err := readTaskKeys(ctx, tx, read)
	if err != nil {
		return nil, fmt.Errorf("recording executions: %w", err)
	}
	for tk := range known {
		passed[tk] = true
	}
	for _, tk := range inSet {
		passed[tk] = true
	}
	return &flakySeen{passed: passed, failed: failed}, nil
}

func isAttempt(status string) bool {
	return status == StatusPassed || status == StatusFailed || status == StatusTimedOut
}

// record keeps task_keys and marks the keys that now have both a pass and
// a failure of the same task, in slice order, each seeing the history
// before it and the batch's earlier rows. A pair already known as it is
// writes nothing.
func (f *flakySeen) record(ctx context.Context, tx *sql.Tx, rows []execRow) error {
	for _, r := range rows {
		e := r.e
		if e.Key == "" || !r.attempt {
			continue
		}
		tk := taskKey{e.TaskID, e.Key}
		pass := e.Status == StatusPassed
		both := (pass && f.failed[tk]) || (!pass && f.passed[tk])
		if (pass && !f.passed[tk]) || (!pass && !f.failed[tk]) {
			if pass {
				f.passed[tk] = true
			} else {
				f.failed[tk] = true
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO task_keys (task_id, key, passed, failed) VALUES (?, ?, ?, ?)
				ON CONFLICT (task_id, key) DO UPDATE SET passed = max(passed, excluded.passed), failed = max(failed, excluded.failed)`,
				e.TaskID, e.Key, boolInt(pass), boolInt(!pass)); err != nil {
				return fmt.Errorf("recording execution of %s: %w", e.TaskID, err)
			}
		}
		if both {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO flaky_keys (task_id, key, run_seq) VALUES (?, ?, ?)`,
				e.TaskID, e.Key, r.rc.seq); err != nil {
				return fmt.Errorf("recording execution of %s: %w", e.TaskID, err)
			}
		}
	}
	return nil
}
