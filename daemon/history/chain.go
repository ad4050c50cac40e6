package history

import (
	"context"
	"database/sql"
	"fmt"
)

// Each task's executions form a chain, newest first: executions.prev_id is
// the id of the task's execution just before it in (run_seq, id) order
// (NULL for its first), and task_stats.last_id is the head. It replaces
// the index executions(task_id, run_seq): every task appended its entry
// at the end of its own key range, so a run of 1,000 tasks dirtied about
// 1,000 random leaf pages of that index, more of them the longer the
// history. A link costs nothing of its own: prev_id is in the new row
// (appended at the end of the table) and the head is in the task_stats
// row the write updates anyway.
//
// A row usually arrives as its task's newest and links to the head. A
// row of an older run can arrive after a newer run recorded the task (two
// vx processes recording at once): it is spliced in where it belongs,
// found by walking back from the head past the executions of the runs
// recorded since.

// place is an execution's position in its task's chain.
type place struct{ seq, id int64 }

func (p place) after(q place) bool { return p.seq > q.seq || p.seq == q.seq && p.id > q.id }

// chainer computes the prev_id of a batch's rows, reading the stored
// chain only where a row is spliced in.
type chainer struct {
	tx     *sql.Tx
	heads  map[string]place
	rows   []execRow // the batch, whose ids run from rows[0].id up by one
	stored map[int64]*stored
	read   *sql.Stmt
}

// stored is a row of an earlier transaction that a splice walked.
type stored struct {
	seq, prev int64 // prev 0: the first of its task
	moved     bool  // the batch changed its prev
}

// lastExec is what the flaky check needs of a task's last execution.
type lastExec struct{ status, key string }

// batchHeads reads the chain head of every task the batch has a row of,
// and that execution's status and key.
//
// A plain hit of the current hit set (known) needs neither: it is no row
// of the chain, and its pair is known to pass (batchFlaky).
func batchHeads(ctx context.Context, tx *sql.Tx, execs []Execution, known []bool) (map[string]place, map[string]lastExec, error) {
	seen := map[string]bool{}
	var ids []string
	for i := range execs {
		if id := execs[i].TaskID; !known[i] && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	out := make(map[string]place, len(ids))
	last := make(map[string]lastExec, len(ids))
	err := inChunks(ids, func(ph string, args []any) error {
		rows, err := tx.QueryContext(ctx, `SELECT task_id, last_seq, last_id, last_status, last_key FROM task_stats WHERE task_id IN (`+ph+`)`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var p place
			var l lastExec
			if err := rows.Scan(&id, &p.seq, &p.id, &l.status, &l.key); err != nil {
				return err
			}
			out[id], last[id] = p, l
		}
		return rows.Err()
	})
	if err != nil {
		return nil, nil, fmt.Errorf("recording executions: reading the tasks' last executions: %w", err)
	}
	return out, last, nil
}

// chainRows sets prev of every row, in slice order (ids already given),
// and writes the prev_id of stored rows a splice moved.
func chainRows(ctx context.Context, tx *sql.Tx, heads map[string]place, rows []execRow) error {
	c := &chainer{tx: tx, heads: heads, rows: rows}
	defer func() {
		if c.read != nil {
			c.read.Close()
		}
	}()
	for i := range rows {
		if err := c.add(ctx, &rows[i]); err != nil {
			return fmt.Errorf("recording execution of %s: linking it to the task's previous one: %w", rows[i].e.TaskID, err)
		}
	}
	for id, l := range c.stored {
		if !l.moved {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE executions SET prev_id = ? WHERE id = ?`, nullID(l.prev), id); err != nil {
			return fmt.Errorf("recording executions: relinking execution %d: %w", id, err)
		}
	}
	return nil
}

func (c *chainer) add(ctx context.Context, r *execRow) error {
	me := place{r.rc.seq, r.id}
	head, ok := c.heads[r.e.TaskID]
	if !ok || me.after(head) {
		if ok {
			r.prev = head.id
		}
		c.heads[r.e.TaskID] = me
		return nil
	}
	// Walk back from the head to the first execution before me; the one
	// walked from (succ) now follows me.
	succ := head.id
	_, succPrev, err := c.node(ctx, succ)
	if err != nil {
		return err
	}
	for *succPrev != 0 {
		seq, prev, err := c.node(ctx, *succPrev)
		if err != nil {
			return err
		}
		if !(place{seq, *succPrev}).after(me) {
			break
		}
		succ, succPrev = *succPrev, prev
	}
	r.prev = *succPrev
	*succPrev = r.id
	if succ < c.rows[0].id {
		c.stored[succ].moved = true
	}
	return nil
}

// node is execution id's run seq and its prev as the batch has it: one of
// the batch's rows, or a stored row read once.
func (c *chainer) node(ctx context.Context, id int64) (seq int64, prev *int64, err error) {
	if i := id - c.rows[0].id; i >= 0 {
		r := &c.rows[i]
		return r.rc.seq, &r.prev, nil
	}
	if l := c.stored[id]; l != nil {
		return l.seq, &l.prev, nil
	}
	if c.read == nil {
		if c.read, err = c.tx.PrepareContext(ctx, `SELECT run_seq, coalesce(prev_id, 0) FROM executions WHERE id = ?`); err != nil {
			return 0, nil, err
		}
		c.stored = map[int64]*stored{}
	}
	l := &stored{}
	if err := c.read.QueryRowContext(ctx, id).Scan(&l.seq, &l.prev); err != nil {
		return 0, nil, fmt.Errorf("execution %d: %w", id, err)
	}
	c.stored[id] = l
	return l.seq, &l.prev, nil
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// chainFrom is the recursive part that walks a task's chain, newest
// first, from the head task_stats names for ?1: chain(id, seq, prev).
// cond, over e, bounds the walk (it stops at the first row that fails
// it); limit (a placeholder or "") caps the rows walked.
func chainFrom(cond, limit string) string {
	if cond == "" {
		cond = "1"
	}
	q := `WITH RECURSIVE chain(id, seq, prev) AS (
		SELECT e.id, e.run_seq, e.prev_id FROM task_stats t CROSS JOIN executions e ON e.id = t.last_id
			WHERE t.task_id = ?1 AND ` + cond + `
		UNION ALL
		SELECT e.id, e.run_seq, e.prev_id FROM chain c CROSS JOIN executions e ON e.id = c.prev WHERE ` + cond
	if limit != "" {
		q += ` LIMIT ` + limit
	}
	return q + `)`
}

// newestOf reads cols of the newest execution of task_stats' task,
// through executions_task while the migration still has it.
func newestOf(cols string) string {
	return `(SELECT ` + cols + ` FROM executions x
		WHERE x.task_id = task_stats.task_id ORDER BY x.run_seq DESC, x.id DESC LIMIT 1)`
}

// stepLastKey (schema 7 → 8) adds task_stats.last_key, the key of the
// task's last execution (the head), which RecordExecutions keeps beside
// last_status, and fills it from the heads; the flaky check reads it
// instead of joining each head's row. The column is already there in the
// older-schema databases the migration tests shape from a current one:
// then it is only filled.
func stepLastKey(ctx context.Context, tx *sql.Tx) error {
	var have int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('task_stats') WHERE name = 'last_key'`).Scan(&have); err != nil {
		return fmt.Errorf("adding the last executions' keys: %w", err)
	}
	stmts := []string{`UPDATE task_stats SET last_key = coalesce((SELECT e.key FROM executions e WHERE e.id = task_stats.last_id), '')`}
	if have == 0 {
		stmts = append([]string{`ALTER TABLE task_stats ADD COLUMN last_key TEXT NOT NULL DEFAULT ''`}, stmts...)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("adding the last executions' keys: %w", err)
		}
	}
	return nil
}

// stepTaskChain (schema 6 → 7) links every task's executions into its
// chain and drops executions_task, which the chain replaces; the order
// comes from executions_task itself, read before it goes. Every head in
// task_stats is made the task's newest execution (RecordExecutions kept
// them so; the readers now start from them). prev_id is already there
// in the older-schema databases the migration tests shape from a current
// one: then it is only filled.
func stepTaskChain(ctx context.Context, tx *sql.Tx) error {
	var have int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('executions') WHERE name = 'prev_id'`).Scan(&have); err != nil {
		return fmt.Errorf("linking task chains: %w", err)
	}
	stmts := []string{
		`UPDATE task_stats SET (last_seq, last_id, last_status, last_run_id) = ` + newestOf("x.run_seq, x.id, x.status, x.run_id") + `
			WHERE (last_id IS NOT ` + newestOf("x.id") + ` OR last_seq IS NOT ` + newestOf("x.run_seq") + `)
			AND EXISTS (SELECT 1 FROM executions x WHERE x.task_id = task_stats.task_id)`,
		`UPDATE executions SET prev_id = l.prev
			FROM (SELECT id, lag(id) OVER (PARTITION BY task_id ORDER BY run_seq, id) AS prev FROM executions ORDER BY id) AS l
			WHERE executions.id = l.id AND executions.prev_id IS NOT l.prev`,
		`DROP INDEX IF EXISTS executions_task`,
	}
	if have == 0 {
		stmts = append([]string{`ALTER TABLE executions ADD COLUMN prev_id INTEGER`}, stmts...)
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("linking task chains: %w", err)
		}
	}
	return nil
}
