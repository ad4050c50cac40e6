package history

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// recordHits writes the batch's plain hits: per run, one inline part
// (hitschema.go). A task whose first record is a hit gets its task_stats
// row, all zero, so that the readers list it; the hits count from the
// part, then from the set.
func (s *Store) recordHits(ctx context.Context, tx *sql.Tx, all []execRow, heads map[string]place, cur *current) error {
	type part struct {
		rc      *runCount
		members []member
		hits    []hit
		inSet   []hit // the same hits, numbered as members of the current set
	}
	parts := map[string]*part{}
	var order []string
	for i := range all {
		r := &all[i]
		if r.id != 0 {
			continue
		}
		e := r.e
		p := parts[e.RunID]
		if p == nil {
			p = &part{rc: r.rc}
			parts[e.RunID] = p
			order = append(order, e.RunID)
		}
		h := hit{m: len(p.members), pos: r.pos, startNs: nanos(e.StartedAt), durationMs: e.DurationMs}
		p.hits = append(p.hits, h)
		p.members = append(p.members, memberOf(e))
		if h.m = cur.member[i]; h.m >= 0 {
			p.inSet = append(p.inSet, h)
		}
		if _, ok := heads[e.TaskID]; !ok && cur.member[i] < 0 {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO task_stats (task_id, project, task, count, ran, passed, failed,
				timed_out, blocked, interrupted, hits, cacheable, max_rss, max_cpu, last_seq, last_id, last_status, last_run_id,
				last_key, p50_ms, p99_ms) VALUES (?, ?, ?, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '', '', '', 0, 0)`,
				e.TaskID, e.Project, e.Task); err != nil {
				return fmt.Errorf("recording hit of %s: %w", e.TaskID, err)
			}
			heads[e.TaskID] = place{}
		}
	}
	for _, runID := range order {
		p := parts[runID]
		var set any
		var data []byte
		hits := p.inSet
		if len(p.inSet) == len(p.hits) {
			// Every hit a member of the current set: the timing alone.
			slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.pos, b.pos) })
			set, data = cur.id, encodeTiming(nil, hits, p.rc.started)
		} else {
			var ms []member
			ms, hits = canonical(p.members, p.hits)
			data = encodeTiming(encodeMembers(ms), hits, p.rc.started)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO run_hits (run_id, part, run_seq, run_started_at, set_id, n, ended_at, data)
			VALUES (?1, (SELECT coalesce(max(part), 0) + 1 FROM run_hits WHERE run_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7)`,
			runID, p.rc.seq, p.rc.started, set, len(hits), latestEnd(hits), s.enc.EncodeAll(data, nil))
		if err != nil {
			return fmt.Errorf("recording the hits of run %s: %w", runID, err)
		}
	}
	return nil
}

// current is the current hit set (the one the last finished runs
// recorded) and, per execution of a batch, the index of its member there
// (-1 for none): the set's first run gave each member's task a
// task_stats row and recorded its pair as passing.
type current struct {
	id     int64
	d      *decodedSet
	member []int
}

func (c *current) known() []bool {
	k := make([]bool, len(c.member))
	for i, m := range c.member {
		k[i] = m >= 0
	}
	return k
}

// currentOf finds the members of the current set among execs' plain hits.
func (s *Store) currentOf(ctx context.Context, tx *sql.Tx, execs []Execution) (*current, error) {
	c := &current{member: make([]int, len(execs))}
	for i := range c.member {
		c.member[i] = -1
	}
	sets, err := unfoldedSets(ctx, tx, 0)
	if err != nil {
		return nil, fmt.Errorf("recording executions: %w", err)
	}
	if len(sets) == 0 {
		return c, nil
	}
	c.id = sets[0].id
	if c.d, err = s.loadSet(ctx, tx, c.id); err != nil {
		return nil, fmt.Errorf("recording executions: %w", err)
	}
	for i := range execs {
		e := &execs[i]
		if !plainHit(e) {
			continue
		}
		want := memberOf(e)
		for _, m := range c.d.index[e.TaskID] {
			if c.d.members[m] == want {
				c.member[i] = m
				break
			}
		}
	}
	return c, nil
}

// latestEnd is the latest end of hits, Unix ns.
func latestEnd(hits []hit) int64 {
	var end int64
	for _, h := range hits {
		end = max(end, h.startNs+h.durationMs*1e6)
	}
	return end
}

// storedPart is one run_hits row.
type storedPart struct {
	id, part, seq, started, n int64
	runID                     string
	set                       sql.NullInt64
	data                      []byte
}

// decodePart answers a part's members and hits.
func (s *Store) decodePart(ctx context.Context, q querier, p *storedPart) ([]member, []hit, error) {
	raw, err := s.dec.DecodeAll(p.data, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("hits of run %s: %w", p.runID, err)
	}
	r := &blobReader{b: raw}
	var ms []member
	if p.set.Valid {
		d, err := s.loadSet(ctx, q, p.set.Int64)
		if err != nil {
			return nil, nil, err
		}
		ms = d.members
	} else if ms, err = decodeMembers(r); err != nil {
		return nil, nil, fmt.Errorf("hits of run %s: %w", p.runID, err)
	}
	hits, err := decodeTiming(r, len(ms), p.started)
	if err != nil {
		return nil, nil, fmt.Errorf("hits of run %s: %w", p.runID, err)
	}
	return ms, hits, nil
}

// rowQuerier is what readers and writers of parts need of a *sql.DB or
// *sql.Tx.
type rowQuerier interface {
	querier
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

const partCols = `id, run_id, part, run_seq, run_started_at, set_id, n, data`

// queryParts reads the run_hits rows query selects (partCols).
func queryParts(ctx context.Context, q rowQuerier, query string, args ...any) ([]storedPart, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedPart
	for rows.Next() {
		var p storedPart
		if err := rows.Scan(&p.id, &p.runID, &p.part, &p.seq, &p.started, &p.set, &p.n, &p.data); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// finishHits merges the parts of a run into its hit set, when it has
// parts: the set is found by its digest or written, the current set is
// folded into task_stats first when it is another, and the parts give
// way to one row. FinishRun calls it in its transaction.
func (s *Store) finishHits(ctx context.Context, tx *sql.Tx, runID string) error {
	parts, err := queryParts(ctx, tx, `SELECT `+partCols+` FROM run_hits WHERE run_id = ? ORDER BY part`, runID)
	if err != nil {
		return fmt.Errorf("finishing the hits of run %s: %w", runID, err)
	}
	if len(parts) == 0 || parts[0].part == 0 {
		return nil // none, or merged already
	}
	id, hits, ok, err := s.sameSet(ctx, tx, parts)
	if err != nil {
		return fmt.Errorf("finishing the hits of run %s: %w", runID, err)
	}
	if !ok {
		// The parts' members one after another, a stored set's once
		// however many parts name it.
		var ms []member
		setAt := map[int64]int{}
		for i := range parts {
			pm, ph, err := s.decodePart(ctx, tx, &parts[i])
			if err != nil {
				return fmt.Errorf("finishing the hits of run %s: %w", runID, err)
			}
			at, seen := setAt[parts[i].set.Int64]
			if !seen || !parts[i].set.Valid {
				at = len(ms)
				ms = append(ms, pm...)
				if parts[i].set.Valid {
					setAt[parts[i].set.Int64] = at
				}
			}
			for _, h := range ph {
				h.m += at
				hits = append(hits, h)
			}
		}
		var set []member
		set, hits = canonical(ms, hits)
		if id, err = s.findSet(ctx, tx, set); err != nil {
			return fmt.Errorf("finishing the hits of run %s: %w", runID, err)
		}
	}
	if err := s.foldOthers(ctx, tx, id); err != nil {
		return fmt.Errorf("finishing the hits of run %s: %w", runID, err)
	}
	p := parts[0]
	stmts := []struct {
		q    string
		args []any
	}{
		{`UPDATE hit_sets SET runs = runs + 1, last_run = CASE WHEN ?1 > last_seq THEN ?2 ELSE last_run END,
			last_seq = max(last_seq, ?1) WHERE id = ?3`, []any{p.seq, runID, id}},
		{`DELETE FROM run_hits WHERE run_id = ?`, []any{runID}},
		{`INSERT INTO run_hits (run_id, part, run_seq, run_started_at, set_id, n, ended_at, data) VALUES (?, 0, ?, ?, ?, ?, ?, ?)`,
			[]any{runID, p.seq, p.started, id, len(hits), latestEnd(hits), s.enc.EncodeAll(encodeTiming(nil, hits, p.started), nil)}},
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
			return fmt.Errorf("finishing the hits of run %s: %w", runID, err)
		}
	}
	return nil
}

// sameSet reports whether parts are all timings of one stored set that
// together hit each of its members once (a no-op run of the current
// set): then that set is the run's, and its hits are as the parts
// number them, in position order.
func (s *Store) sameSet(ctx context.Context, tx *sql.Tx, parts []storedPart) (int64, []hit, bool, error) {
	id := parts[0].set
	var hits []hit
	var members int
	for i := range parts {
		p := &parts[i]
		if !p.set.Valid || p.set != id {
			return 0, nil, false, nil
		}
		ms, ph, err := s.decodePart(ctx, tx, p)
		if err != nil {
			return 0, nil, false, err
		}
		members = len(ms)
		hits = append(hits, ph...)
	}
	if len(hits) != members {
		return 0, nil, false, nil
	}
	seen := make([]bool, members)
	for _, h := range hits {
		if seen[h.m] {
			return 0, nil, false, nil
		}
		seen[h.m] = true
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.pos, b.pos) })
	return id.Int64, hits, true, nil
}

// findSet answers the id of the stored set of members, writing it when
// it is new.
func (s *Store) findSet(ctx context.Context, tx *sql.Tx, set []member) (int64, error) {
	enc := encodeMembers(set)
	digest := digestOf(enc)
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM hit_sets WHERE digest = ?`, digest).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO hit_sets (digest, n, runs, folded, last_seq, last_run, members)
		VALUES (?, ?, 0, 0, 0, '', ?) RETURNING id`, digest, len(set), s.enc.EncodeAll(enc, nil)).Scan(&id)
	return id, err
}

// foldOthers folds every set but keep that has runs task_stats does not
// count yet (at most one: the current set) into task_stats.
func (s *Store) foldOthers(ctx context.Context, tx *sql.Tx, keep int64) error {
	sets, err := unfoldedSets(ctx, tx, keep)
	if err != nil {
		return err
	}
	for _, u := range sets {
		d, err := s.loadSet(ctx, tx, u.id)
		if err != nil {
			return err
		}
		if err := foldSet(ctx, tx, d, u.runs, u.seq, u.run); err != nil {
			return fmt.Errorf("folding hit set %d: %w", u.id, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE hit_sets SET folded = runs WHERE id = ?`, u.id); err != nil {
			return err
		}
	}
	return nil
}

// unfoldedSet is a hit set with runs task_stats does not count yet: how
// many, and the newest of them (seq, run id).
type unfoldedSet struct {
	id, runs, seq int64
	run           string
}

// unfoldedSets answers the sets but skip (0: none) with runs task_stats
// does not count yet, newest first: the current set, and while finishHits
// folds, the set it folds.
func unfoldedSets(ctx context.Context, q rowQuerier, skip int64) ([]unfoldedSet, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, runs - folded, last_seq, last_run FROM hit_sets INDEXED BY hit_sets_unfolded
		WHERE runs > folded AND id != ? ORDER BY id DESC`, skip)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var sets []unfoldedSet
	for rows.Next() {
		var u unfoldedSet
		if err := rows.Scan(&u.id, &u.runs, &u.seq, &u.run); err != nil {
			return nil, err
		}
		sets = append(sets, u)
	}
	return sets, rows.Err()
}

// foldSet adds runs runs of set d, the newest run seq (id run), to its
// members' task_stats rows.
func foldSet(ctx context.Context, tx *sql.Tx, d *decodedSet, runs, seq int64, run string) error {
	stmt, err := tx.PrepareContext(ctx, `UPDATE task_stats SET count = count + ?1, passed = passed + ?1, hits = hits + ?1,
		cacheable = cacheable + ?1, hit_run_id = CASE WHEN ?2 > hit_seq THEN ?3 ELSE hit_run_id END, hit_seq = max(hit_seq, ?2)
		WHERE task_id = ?4`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, m := range d.members {
		if _, err := stmt.ExecContext(ctx, runs, seq, run, m.TaskID); err != nil {
			return err
		}
	}
	return nil
}
