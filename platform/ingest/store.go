package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/vzn/vx/protocol/wire"
)

// storeSQL stores a run in one statement: the workspace row (created on
// first push), the run (nothing when the workspace has it: idempotent),
// and — only when the run is new — its tasks, its key components and the
// workspace's run count and last-seen time.
const storeSQL = `
WITH new_ws AS (
	INSERT INTO workspaces (org_id, id, slug, name, last_seen_at, run_count) VALUES ($1, $2, $3, $3, $5, 1)
	ON CONFLICT (org_id, slug) DO NOTHING RETURNING id
), ws AS (
	SELECT id, true AS fresh FROM new_ws
	UNION ALL SELECT id, false FROM workspaces WHERE org_id = $1 AND slug = $3
), run AS (
	INSERT INTO runs (org_id, workspace_id, id, command, git_branch, git_commit, ci, started_at, ended_at, exit_code, status,
		duration_ms, tasks, passed, failed, cached, blocked, timed_out, interrupted, skipped, executions, hits, local_hits, remote_hits)
	SELECT $1, ws.id, $4, $6, $7, $8, $9, $5, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25
	FROM ws ON CONFLICT (workspace_id, id) DO NOTHING RETURNING workspace_id, id, started_at
), tasks AS (
	INSERT INTO executions (org_id, workspace_id, run_id, run_started_at, task_id, project, task, key, status, cache, cache_source,
		exit_code, started_at, duration_ms, peak_rss_bytes, cpu_parallelism, reason, blocked_by, timed_out, entry_bytes, failure)
	SELECT $1, run.workspace_id, run.id, run.started_at, t.task_id, t.project, t.task, t.key, t.status, t.cache, t.cache_source,
		t.exit_code, t.started_at, t.duration_ms, t.peak_rss, t.cpu, t.reason,
		ARRAY(SELECT jsonb_array_elements_text(t.blocked_by::jsonb)), t.timed_out, t.entry_bytes, t.failure::jsonb
	FROM run, unnest($26::text[], $27::text[], $28::text[], $29::text[], $30::text[], $31::text[], $32::text[], $33::int[],
		$34::timestamptz[], $35::bigint[], $36::bigint[], $37::float8[], $38::text[], $39::text[], $40::bool[], $41::bigint[], $44::text[])
		AS t(task_id, project, task, key, status, cache, cache_source, exit_code, started_at, duration_ms, peak_rss, cpu, reason,
			blocked_by, timed_out, entry_bytes, failure)
), comps AS (
	INSERT INTO components (org_id, workspace_id, key, body)
	SELECT $1, run.workspace_id, c.k, c.b::jsonb FROM run, unnest($42::text[], $43::text[]) AS c(k, b)
	ON CONFLICT (workspace_id, key) DO NOTHING
), counted AS (
	-- A workspace created by this statement starts at one run; it is not
	-- in the statement's snapshot, so only an existing one is counted here.
	UPDATE workspaces SET run_count = run_count + 1, last_seen_at = GREATEST(last_seen_at, run.started_at)
	FROM run WHERE workspaces.id = run.workspace_id
)
SELECT (SELECT id FROM ws LIMIT 1), EXISTS (SELECT 1 FROM run)`

// columns are a run's task rows as arrays, one per column.
type columns struct {
	taskID, project, task, key, status, cache, source, reason, blocked []string
	exit                                                               []*int
	started                                                            []any
	duration, rss                                                      []int64
	cpu                                                                []float64
	timedOut                                                           []bool
	entry                                                              []*int64
	failure                                                            []*string // JSON; nil for none
}

func taskColumns(r *wire.PushRun) *columns {
	n := len(r.Tasks)
	c := &columns{taskID: make([]string, n), project: make([]string, n), task: make([]string, n), key: make([]string, n),
		status: make([]string, n), cache: make([]string, n), source: make([]string, n), reason: make([]string, n),
		blocked: make([]string, n), exit: make([]*int, n), started: make([]any, n), duration: make([]int64, n), rss: make([]int64, n),
		cpu: make([]float64, n), timedOut: make([]bool, n), entry: make([]*int64, n), failure: make([]*string, n)}
	for i, t := range r.Tasks {
		project, task := splitTaskID(t.TaskID, t.Project, t.Task)
		blocked := t.BlockedBy
		if blocked == nil {
			blocked = []string{}
		}
		b, _ := json.Marshal(blocked)
		c.taskID[i], c.project[i], c.task[i], c.key[i] = t.TaskID, project, task, t.Key
		c.status[i], c.cache[i], c.source[i], c.reason[i], c.blocked[i] = t.Status, t.Cache, t.CacheSource, t.Reason, string(b)
		c.exit[i], c.duration[i], c.rss[i], c.cpu[i], c.timedOut[i], c.entry[i] = t.ExitCode, t.DurationMs, t.PeakRSSBytes, t.CPUParallelism, t.TimedOut, t.EntryBytes
		if t.StartedAt != nil {
			c.started[i] = *t.StartedAt
		}
		if t.Failure != nil {
			b, _ := json.Marshal(withoutNUL(t.Failure))
			f := string(b)
			c.failure[i] = &f
		}
	}
	return c
}

// withoutNUL is f with each NUL character of its text replaced by U+FFFD:
// PostgreSQL refuses \u0000 in JSONB, and a task's output may hold one.
func withoutNUL(f *wire.PushFailure) *wire.PushFailure {
	clean := func(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }
	out := &wire.PushFailure{Excerpt: clean(f.Excerpt), Truncated: f.Truncated, Locations: make([]wire.FailureLocation, len(f.Locations))}
	for i, l := range f.Locations {
		l.File, l.Message, l.Tool = clean(l.File), clean(l.Message), clean(l.Tool)
		out.Locations[i] = l
	}
	return out
}

func splitTaskID(id, project, task string) (string, string) {
	if project != "" || task != "" {
		return project, task
	}
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '#' {
			return id[:i], id[i+1:]
		}
	}
	return project, task
}

// counts are the hit split and executed tasks of a run.
func counts(r *wire.PushRun) (hits, local, remote, executions int) {
	for _, t := range r.Tasks {
		switch {
		case t.Cache == wire.CacheHit && t.CacheSource == wire.CacheSourceRemote:
			hits++
			remote++
		case t.Cache == wire.CacheHit:
			// A hit not marked remote came from the local cache.
			hits++
			local++
		case t.Status == wire.StatusPassed || t.Status == wire.StatusFailed || t.Status == wire.StatusTimedOut:
			executions++
		}
	}
	return
}

func store(ctx context.Context, pool *pgxpool.Pool, org int64, r *wire.PushRun) (*wire.PushResult, error) {
	hits, local, remote, executions := counts(r)
	c := taskColumns(r)
	keys := make([]string, 0, len(r.Components))
	bodies := make([]string, 0, len(r.Components))
	for k, b := range r.Components {
		keys = append(keys, k)
		bodies = append(bodies, string(b))
	}
	tot := r.Totals
	res := &wire.PushResult{RunID: r.RunID}
	var wsID *string
	err := pool.QueryRow(ctx, storeSQL, org, newWorkspaceID(), r.Workspace, r.RunID, r.StartedAt,
		r.Command, r.GitBranch, r.GitCommit, r.CI, r.EndedAt, r.ExitCode, r.Status, r.DurationMs,
		len(r.Tasks), tot.Passed, tot.Failed, tot.Cached, tot.Blocked, tot.TimedOut, tot.Interrupted, tot.Skipped, executions, hits, local, remote,
		c.taskID, c.project, c.task, c.key, c.status, c.cache, c.source, c.exit, c.started, c.duration, c.rss, c.cpu, c.reason, c.blocked, c.timedOut, c.entry,
		keys, bodies, c.failure).Scan(&wsID, &res.Created)
	if err != nil {
		return nil, fmt.Errorf("storing run %s: %w", r.RunID, err)
	}
	if wsID != nil {
		res.WorkspaceID = *wsID
	}
	return res, nil
}
