package history

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
)

// Reading plain hits (hitset.go) beside the rows of executions: a run's
// executions are its rows and its hits in recording order (pos); a
// task's are its chain of rows (chain.go) and the runs whose hits name
// it, newest first.

// tlRow is an execution with its run's place and its own in the run
// (pos, or the row id for rows recorded before schema 9).
type tlRow struct {
	ExecRow
	pos int64
}

func (a *tlRow) after(b *tlRow) bool {
	return a.RunSeq > b.RunSeq || a.RunSeq == b.RunSeq && a.pos > b.pos
}

// only narrows a run's executions to one task id, or to one task name
// (empty: any).
type only struct{ taskID, task string }

func (o only) keeps(m *member) bool {
	return (o.taskID == "" || m.TaskID == o.taskID) && (o.task == "" || m.Task == o.task)
}

// hitsOf answers the hits of parts as executions, only those o keeps.
func (s *Store) hitsOf(ctx context.Context, q querier, parts []storedPart, o only) ([]tlRow, error) {
	var out []tlRow
	for i := range parts {
		p := &parts[i]
		ms, hits, err := s.decodePart(ctx, q, p)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			m := &ms[h.m]
			if !o.keeps(m) {
				continue
			}
			out = append(out, tlRow{ExecRow: ExecRow{Execution: m.execution(p.runID, h), RunStartedAt: fromNanos(p.started), RunSeq: p.seq}, pos: h.pos})
		}
	}
	return out, nil
}

// runExecutions answers a run's executions in recording order, rows and
// hits merged (outputs with withOutput), only those o keeps.
func (s *Store) runExecutions(ctx context.Context, db *sql.DB, runID string, o only, withOutput bool) ([]tlRow, error) {
	cols := execCols
	if withOutput {
		cols = execColsOut
	}
	q := `SELECT ` + cols + `, e.run_started_at, e.run_seq, coalesce(e.pos, e.id) FROM executions e
		WHERE e.run_id = ?1 AND (?2 = '' OR e.task_id = ?2) AND (?3 = '' OR e.task = ?3) ORDER BY e.id`
	rows, err := db.QueryContext(ctx, q, runID, o.taskID, o.task)
	if err != nil {
		return nil, err
	}
	var out []tlRow
	for rows.Next() {
		var r tlRow
		var started int64
		e, err := s.scanExec(rows, withOutput, &started, &r.RunSeq, &r.pos)
		if err != nil {
			rows.Close()
			return nil, err
		}
		r.Execution, r.RunStartedAt = *e, fromNanos(started)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	parts, err := queryParts(ctx, db, `SELECT `+partCols+` FROM run_hits WHERE run_id = ? ORDER BY part`, runID)
	if err != nil || len(parts) == 0 {
		return out, err
	}
	hits, err := s.hitsOf(ctx, db, parts, o)
	if err != nil {
		return nil, err
	}
	out = append(out, hits...)
	slices.SortStableFunc(out, func(a, b tlRow) int { return cmp.Compare(a.pos, b.pos) })
	return out, nil
}

// timeline walks one task's executions newest first, before a run seq:
// its chain of rows, a page at a time, merged with the runs whose hits
// name it.
type timeline struct {
	s        *Store
	db       *sql.DB
	task     string
	before   int64
	out      bool
	rows     []tlRow
	nextID   int64 // the chain row to read from next; 0: no more
	hits     []tlRow
	cursor   [2]int64 // run_hits (seq, part) to read below
	hitsDone bool
	names    map[int64]bool // whether a set names the task
}

const timelinePage = 64

// newTimeline starts task's timeline before run seq before (0 or less:
// all).
func (s *Store) newTimeline(ctx context.Context, db *sql.DB, task string, before int64, withOutput bool) (*timeline, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	t := &timeline{s: s, db: db, task: task, before: before, out: withOutput, names: map[int64]bool{}}
	var hitSeq int64
	err := db.QueryRowContext(ctx, `SELECT last_id, hit_seq FROM task_stats WHERE task_id = ?`, task).Scan(&t.nextID, &hitSeq)
	if err == sql.ErrNoRows {
		t.hitsDone = true
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	newest, err := s.newestHit(ctx, db, task, hitSeq)
	if err != nil {
		return nil, err
	}
	// No run after the task's newest hit names it.
	t.hitsDone = newest == 0
	t.cursor = [2]int64{min(before, newest+1), 0}
	return t, nil
}

// newestHit answers the seq of the newest run whose hits name task, 0
// for none: the newest of its folded sets' (folded), the current set's
// and the pending parts'.
func (s *Store) newestHit(ctx context.Context, db *sql.DB, task string, folded int64) (int64, error) {
	newest := folded
	sets, err := unfoldedSets(ctx, db, 0)
	if err != nil {
		return 0, err
	}
	if len(sets) > 0 && sets[0].seq > newest {
		d, err := s.loadSet(ctx, db, sets[0].id)
		if err != nil {
			return 0, err
		}
		if len(d.index[task]) > 0 {
			newest = sets[0].seq
		}
	}
	parts, err := queryParts(ctx, db, `SELECT `+partCols+` FROM run_hits INDEXED BY run_hits_parts WHERE part > 0`)
	if err != nil {
		return 0, err
	}
	for i := range parts {
		if parts[i].seq <= newest {
			continue
		}
		ms, hits, err := s.decodePart(ctx, db, &parts[i])
		if err != nil {
			return 0, err
		}
		for _, h := range hits {
			if ms[h.m].TaskID == task {
				newest = parts[i].seq
				break
			}
		}
	}
	return newest, nil
}

// next answers the next execution, nil after the last.
func (t *timeline) next(ctx context.Context) (*tlRow, error) {
	if len(t.rows) == 0 && t.nextID != 0 {
		if err := t.readRows(ctx); err != nil {
			return nil, err
		}
	}
	for len(t.hits) == 0 && !t.hitsDone {
		if err := t.readHits(ctx); err != nil {
			return nil, err
		}
	}
	switch {
	case len(t.rows) == 0 && len(t.hits) == 0:
		return nil, nil
	case len(t.hits) == 0 || len(t.rows) > 0 && t.rows[0].after(&t.hits[0]):
		r := t.rows[0]
		t.rows = t.rows[1:]
		return &r, nil
	}
	r := t.hits[0]
	t.hits = t.hits[1:]
	return &r, nil
}

func (t *timeline) readRows(ctx context.Context) error {
	cols := execCols
	if t.out {
		cols = execColsOut
	}
	q := `WITH RECURSIVE chain(id, prev, k) AS (
		SELECT e.id, e.prev_id, (e.run_seq < ?2) FROM executions e WHERE e.id = ?1
		UNION ALL
		SELECT e.id, e.prev_id, c.k + (e.run_seq < ?2) FROM chain c CROSS JOIN executions e ON e.id = c.prev WHERE c.k < ?3)
		SELECT ` + cols + `, e.run_started_at, e.run_seq, coalesce(e.pos, e.id), coalesce(e.prev_id, 0)
		FROM chain c CROSS JOIN executions e ON e.id = c.id WHERE e.run_seq < ?2 ORDER BY e.run_seq DESC, e.id DESC`
	rows, err := t.db.QueryContext(ctx, q, t.nextID, t.before, timelinePage)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	t.nextID = 0
	for rows.Next() {
		var r tlRow
		var started, prev int64
		e, err := t.s.scanExec(rows, t.out, &started, &r.RunSeq, &r.pos, &prev)
		if err != nil {
			return err
		}
		r.Execution, r.RunStartedAt = *e, fromNanos(started)
		t.rows = append(t.rows, r)
		t.nextID = prev
		n++
	}
	if n < timelinePage {
		t.nextID = 0
	}
	return rows.Err()
}

// readHits reads run_hits rows below the cursor, newest first, until
// one names the task or none is left.
func (t *timeline) readHits(ctx context.Context) error {
	rows, err := t.db.QueryContext(ctx, `SELECT id, run_seq, part, set_id FROM run_hits INDEXED BY run_hits_seq
		WHERE (run_seq, part) < (?, ?) ORDER BY run_seq DESC, part DESC LIMIT ?`, t.cursor[0], t.cursor[1], timelinePage)
	if err != nil {
		return err
	}
	type ref struct {
		id, seq, part int64
		set           sql.NullInt64
	}
	var refs []ref
	for rows.Next() {
		var r ref
		if err := rows.Scan(&r.id, &r.seq, &r.part, &r.set); err != nil {
			rows.Close()
			return err
		}
		refs = append(refs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	t.hitsDone = len(refs) < timelinePage
	for i, r := range refs {
		t.cursor = [2]int64{r.seq, r.part}
		if r.set.Valid {
			named, ok := t.names[r.set.Int64]
			if !ok {
				d, err := t.s.loadSet(ctx, t.db, r.set.Int64)
				if err != nil {
					return err
				}
				named = len(d.index[t.task]) > 0
				t.names[r.set.Int64] = named
			}
			if !named {
				continue
			}
		}
		parts, err := queryParts(ctx, t.db, `SELECT `+partCols+` FROM run_hits WHERE id = ?`, r.id)
		if err != nil {
			return err
		}
		hits, err := t.s.hitsOf(ctx, t.db, parts, only{taskID: t.task})
		if err != nil {
			return err
		}
		slices.Reverse(hits)
		t.hits = append(t.hits, hits...)
		if len(t.hits) > 0 {
			t.hitsDone = t.hitsDone && i == len(refs)-1
			return nil
		}
	}
	return nil
}

// taskRecent answers up to limit of task's executions, newest first,
// before run seq before (0: all); with match, the walk stops after the
// first execution it matches.
func (s *Store) taskRecent(ctx context.Context, db *sql.DB, task string, before int64, limit int, withOutput bool) ([]tlRow, error) {
	t, err := s.newTimeline(ctx, db, task, before, withOutput)
	if err != nil {
		return nil, err
	}
	var out []tlRow
	for len(out) < limit {
		r, err := t.next(ctx)
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		out = append(out, *r)
	}
	return out, nil
}

// tasksRecent answers up to limit executions of the tasks ids, newest
// first, merged.
func (s *Store) tasksRecent(ctx context.Context, db *sql.DB, ids []string, limit int) ([]ExecRow, error) {
	var all []tlRow
	for _, id := range ids {
		rows, err := s.taskRecent(ctx, db, id, 0, limit, false)
		if err != nil {
			return nil, fmt.Errorf("reading recent executions: %w", err)
		}
		all = append(all, rows...)
		if len(all) > 4*limit {
			all = newestFirst(all, limit)
		}
	}
	all = newestFirst(all, limit)
	var out []ExecRow
	for i := range all {
		out = append(out, all[i].ExecRow)
	}
	return out, nil
}

// newestFirst sorts rows newest first and keeps limit of them.
func newestFirst(rows []tlRow, limit int) []tlRow {
	slices.SortStableFunc(rows, func(a, b tlRow) int {
		if a.after(&b) {
			return -1
		}
		if b.after(&a) {
			return 1
		}
		return 0
	})
	return rows[:min(limit, len(rows))]
}

// recentAll is RecentExecutions without a filter, or only a task name
// (name, "" for any): run by run, newest first. (A task name is many
// tasks' timelines, each walking the runs; one walk serves them all.)
func (s *Store) recentAll(ctx context.Context, db *sql.DB, name string, limit int) ([]ExecRow, error) {
	var out []ExecRow
	cursor := int64(math.MaxInt64)
	for len(out) < limit {
		rows, err := db.QueryContext(ctx, `SELECT id, seq FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`, cursor, timelinePage)
		if err != nil {
			return nil, fmt.Errorf("reading recent executions: %w", err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id, &cursor); err != nil {
				rows.Close()
				return nil, fmt.Errorf("reading recent executions: %w", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("reading recent executions: %w", err)
		}
		for _, id := range ids {
			if len(out) >= limit {
				break
			}
			execs, err := s.runExecutions(ctx, db, id, only{task: name}, false)
			if err != nil {
				return nil, fmt.Errorf("reading recent executions: %w", err)
			}
			for i := len(execs) - 1; i >= 0 && len(out) < limit; i-- {
				out = append(out, execs[i].ExecRow)
			}
		}
		if len(ids) < timelinePage {
			break
		}
	}
	return out, nil
}

// hitsSince counts, per run seq, the hits of runs begun since since
// (seq at least minSeq), of project's tasks ("" for all).
func (s *Store) hitsSince(ctx context.Context, db *sql.DB, minSeq, since int64, project string) (map[int64]int, error) {
	if project == "" {
		return countsSince(ctx, db, minSeq, since)
	}
	parts, err := queryParts(ctx, db, `SELECT `+partCols+` FROM run_hits WHERE run_seq >= ? AND run_started_at >= ?`, minSeq, since)
	if err != nil {
		return nil, err
	}
	out := map[int64]int{}
	for i := range parts {
		p := &parts[i]
		var ms []member
		if p.part == 0 {
			// A finished run's set: a member per hit.
			d, err := s.loadSet(ctx, db, p.set.Int64)
			if err != nil {
				return nil, err
			}
			ms = d.members
		} else {
			pm, hits, err := s.decodePart(ctx, db, p)
			if err != nil {
				return nil, err
			}
			for _, h := range hits {
				ms = append(ms, pm[h.m])
			}
		}
		for _, m := range ms {
			if m.Project == project {
				out[p.seq]++
			}
		}
	}
	return out, nil
}

// countsSince counts, per run seq, the hits of runs begun since since
// (seq at least minSeq), reading no blob.
func countsSince(ctx context.Context, db *sql.DB, minSeq, since int64) (map[int64]int, error) {
	rows, err := db.QueryContext(ctx, `SELECT run_seq, n FROM run_hits WHERE run_seq >= ? AND run_started_at >= ?`, minSeq, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var seq, n int64
		if err := rows.Scan(&seq, &n); err != nil {
			return nil, err
		}
		out[seq] += int(n)
	}
	return out, rows.Err()
}

// hitAdjust is what task_stats does not count yet of a task's hits: the
// current set's unfolded runs and the running (or unfinished) runs'
// parts, and the newest run among them.
type hitAdjust struct {
	n     int
	seq   int64
	runID string
}

// unfoldedHits answers the hits task_stats does not count, by task.
func (s *Store) unfoldedHits(ctx context.Context, db *sql.DB) (map[string]*hitAdjust, error) {
	out := map[string]*hitAdjust{}
	add := func(task string, n int, seq int64, run string) {
		a := out[task]
		if a == nil {
			a = &hitAdjust{}
			out[task] = a
		}
		a.n += n
		if seq > a.seq {
			a.seq, a.runID = seq, run
		}
	}
	sets, err := unfoldedSets(ctx, db, 0)
	if err != nil {
		return nil, err
	}
	for _, u := range sets {
		d, err := s.loadSet(ctx, db, u.id)
		if err != nil {
			return nil, err
		}
		for _, m := range d.members {
			add(m.TaskID, int(u.runs), u.seq, u.run)
		}
	}
	parts, err := queryParts(ctx, db, `SELECT `+partCols+` FROM run_hits INDEXED BY run_hits_parts WHERE part > 0`)
	if err != nil {
		return nil, err
	}
	for i := range parts {
		ms, hits, err := s.decodePart(ctx, db, &parts[i])
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			add(ms[h.m].TaskID, 1, parts[i].seq, parts[i].runID)
		}
	}
	return out, nil
}
