package history

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// Hit sets (schema 9). A plain hit (a local cache hit that passed, with
// nothing of its own to say: no output, reason, peak or violation) is
// not a row of executions. What it is, is a (task, key) pair the run hit;
// the pairs of a run are its hit set, stored once in hit_sets (zstd) and
// shared by every run that hit exactly the same pairs, with the number of
// such runs. What is the run's own, the order its hits were recorded in,
// among its other executions, their start and duration, is one small
// timing blob in the run's run_hits row. A repeated no-op run so adds
// two rows (its run and its run_hits row) whatever its task count.
//
// While a run records, each batch's plain hits are one run_hits row
// holding its own members (an inline part); finishing the run merges
// its parts into its set (hitwrite.go). Readers read both (hitread.go).

// member is one (task, key) pair of a set, with what a plain hit's
// execution carries besides.
type member struct {
	TaskID, Project, Task, Key, Source string
	ExitZero                           bool // exit code 0 (else none recorded)
}

// hit is one plain hit of a run: the member it hit, its place among the
// run's recorded executions, its start (Unix ns) and duration.
type hit struct {
	m          int // index into the members it was decoded with
	pos        int64
	startNs    int64
	durationMs int64
}

// plainHit reports whether e is recorded as a member of its run's hit set.
func plainHit(e *Execution) bool {
	return e.Cache == CacheHit && e.Status == StatusPassed && e.CacheSource != "remote" &&
		(e.ExitCode == nil || *e.ExitCode == 0) && e.PeakRSSBytes == 0 && e.CPUParallelism == 0 &&
		len(e.BlockedBy) == 0 && !e.TimedOut && e.Reason == "" && len(e.Output) == 0 &&
		!e.OutputTruncated && len(e.SandboxViolations) == 0 && e.DurationMs >= 0
}

func memberOf(e *Execution) member {
	return member{TaskID: e.TaskID, Project: e.Project, Task: e.Task, Key: e.Key, Source: e.CacheSource, ExitZero: e.ExitCode != nil}
}

func compareMembers(a, b member) int {
	if c := cmp.Compare(a.TaskID, b.TaskID); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Project, b.Project); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Task, b.Task); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	return cmp.Compare(boolInt(a.ExitZero), boolInt(b.ExitZero))
}

// execution is the hit h of run (id, seq-less) as the tools read it.
func (m *member) execution(runID string, h hit) Execution {
	e := Execution{RunID: runID, TaskID: m.TaskID, Project: m.Project, Task: m.Task, Key: m.Key,
		Status: StatusPassed, Cache: CacheHit, CacheSource: m.Source, StartedAt: fromNanos(h.startNs), DurationMs: h.durationMs}
	if m.ExitZero {
		zero := 0
		e.ExitCode = &zero
	}
	return e
}

// Member flags.
const (
	flagExitZero = 1 << iota
	flagOwnID    // task_id is not project#task
)

// encodeMembers writes members in order: a count, then per member its
// flags and strings, each length-prefixed.
func encodeMembers(ms []member) []byte {
	b := binary.AppendUvarint(nil, uint64(len(ms)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, m := range ms {
		f := 0
		if m.ExitZero {
			f |= flagExitZero
		}
		own := m.TaskID != m.Project+"#"+m.Task
		if own {
			f |= flagOwnID
		}
		b = append(b, byte(f))
		str(m.Project)
		str(m.Task)
		str(m.Key)
		str(m.Source)
		if own {
			str(m.TaskID)
		}
	}
	return b
}

var errHitBlob = errors.New("damaged hit record")

// reader of the varint encodings; the first error sticks.
type blobReader struct {
	b   []byte
	err error
}

func (r *blobReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errHitBlob, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *blobReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errHitBlob, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *blobReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err, r.b = errHitBlob, nil
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// decodeMembers reads encodeMembers' output from r.
func decodeMembers(r *blobReader) ([]member, error) {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, errHitBlob
	}
	ms := make([]member, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		if len(r.b) == 0 {
			return nil, errHitBlob
		}
		f := r.b[0]
		r.b = r.b[1:]
		m := member{ExitZero: f&flagExitZero != 0}
		m.Project, m.Task, m.Key, m.Source = r.str(), r.str(), r.str(), r.str()
		if f&flagOwnID != 0 {
			m.TaskID = r.str()
		} else {
			m.TaskID = m.Project + "#" + m.Task
		}
		ms = append(ms, m)
	}
	return ms, r.err
}

// encodeTiming writes hits (in position order) column by column, each
// value a step from the hit before, which is what compresses: the
// members (a run hits its tasks in much the order the set sorts them),
// the positions, the starts (the first from the run's start), then the
// durations.
func encodeTiming(b []byte, hits []hit, runStartNs int64) []byte {
	b = binary.AppendUvarint(b, uint64(len(hits)))
	m := 0
	for _, h := range hits {
		b = binary.AppendVarint(b, int64(h.m-m))
		m = h.m
	}
	pos := int64(-1)
	for _, h := range hits {
		b = binary.AppendUvarint(b, uint64(h.pos-pos-1))
		pos = h.pos
	}
	start := runStartNs
	for _, h := range hits {
		b = binary.AppendVarint(b, h.startNs-start)
		start = h.startNs
	}
	for _, h := range hits {
		b = binary.AppendUvarint(b, uint64(h.durationMs))
	}
	return b
}

// decodeTiming reads encodeTiming's output from r, for members members.
func decodeTiming(r *blobReader, members int, runStartNs int64) ([]hit, error) {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, errHitBlob
	}
	hits := make([]hit, n)
	m := int64(0)
	for i := range hits {
		m += r.varint()
		if m < 0 || m >= int64(members) {
			return nil, errHitBlob
		}
		hits[i].m = int(m)
	}
	pos := int64(-1)
	for i := range hits {
		pos += int64(r.uvarint()) + 1
		hits[i].pos = pos
	}
	start := runStartNs
	for i := range hits {
		start += r.varint()
		hits[i].startNs = start
	}
	for i := range hits {
		hits[i].durationMs = int64(r.uvarint())
	}
	return hits, r.err
}

// canonical is the multiset of the members hits name (one member per
// hit), sorted, with hits renumbered into it and put in position order.
func canonical(ms []member, hits []hit) ([]member, []hit) {
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareMembers(ms[hits[a].m], ms[hits[b].m]) })
	set := make([]member, len(hits))
	out := make([]hit, len(hits))
	for at, i := range order {
		set[at] = ms[hits[i].m]
		h := hits[i]
		h.m = at
		out[i] = h
	}
	slices.SortStableFunc(out, func(a, b hit) int { return cmp.Compare(a.pos, b.pos) })
	return set, out
}

func digestOf(encoded []byte) []byte {
	d := sha256.Sum256(encoded)
	return d[:]
}

// decodedSet is a stored set's members, with each task's index.
type decodedSet struct {
	members []member
	index   map[string][]int // task id → members of that task
	digest  []byte
}

func newDecodedSet(ms []member) *decodedSet {
	d := &decodedSet{members: ms, index: make(map[string][]int, len(ms))}
	for i, m := range ms {
		d.index[m.TaskID] = append(d.index[m.TaskID], i)
	}
	return d
}

// loadSet reads stored set id, through the store's cache: a set's
// members never change once written (the cache is checked against the
// set's digest, should the file have been replaced since).
func (s *Store) loadSet(ctx context.Context, q querier, id int64) (*decodedSet, error) {
	var digest []byte
	if err := q.QueryRowContext(ctx, `SELECT digest FROM hit_sets WHERE id = ?`, id).Scan(&digest); err != nil {
		return nil, fmt.Errorf("hit set %d: %w", id, err)
	}
	s.setsMu.Lock()
	d := s.sets[id]
	s.setsMu.Unlock()
	if d != nil && string(d.digest) == string(digest) {
		return d, nil
	}
	var z []byte
	if err := q.QueryRowContext(ctx, `SELECT members FROM hit_sets WHERE id = ?`, id).Scan(&z); err != nil {
		return nil, fmt.Errorf("hit set %d: %w", id, err)
	}
	raw, err := s.dec.DecodeAll(z, nil)
	if err != nil {
		return nil, fmt.Errorf("hit set %d: %w", id, err)
	}
	ms, err := decodeMembers(&blobReader{b: raw})
	if err != nil {
		return nil, fmt.Errorf("hit set %d: %w", id, err)
	}
	d = newDecodedSet(ms)
	d.digest = digest
	s.setsMu.Lock()
	if s.sets == nil || len(s.sets) >= maxCachedSets {
		s.sets = map[int64]*decodedSet{}
	}
	s.sets[id] = d
	s.setsMu.Unlock()
	return d, nil
}

// maxCachedSets bounds the decoded sets a store keeps.
const maxCachedSets = 16
