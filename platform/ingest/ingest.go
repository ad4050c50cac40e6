// Package ingest stores the runs vx pushes: one transaction per run, the
// workspace row created on its first push, and idempotent per (workspace,
// run id) so that a run pushed twice (an outbox replay, vx push --all) is
// one run.
package ingest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

// Error is a refusal of the pushed document (HTTP 400) or of the token's
// workspace (HTTP 403).
type Error struct {
	Forbidden bool
	Msg       string
}

func (e *Error) Error() string { return e.Msg }

func bad(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

var (
	runIDRe = regexp.MustCompile(`^[0-9a-f]{6,64}$`)
	keyRe   = regexp.MustCompile(`^[0-9a-f]{4,128}$`)
)

const maxText = 4096

func validStatus(s string) bool {
	switch s {
	case wire.StatusPassed, wire.StatusFailed, wire.StatusBlocked, wire.StatusTimedOut, wire.StatusInterrupted, wire.StatusSkipped:
		return true
	}
	return false
}

// Check refuses a document that is not a finished run.
func Check(r *wire.PushRun) error {
	if err := tokens.CheckSlug(r.Workspace); err != nil {
		return bad("workspace: %v", err)
	}
	if !runIDRe.MatchString(r.RunID) {
		return bad("runId %q is not a vx run id (lowercase hex)", r.RunID)
	}
	switch r.Status {
	case "passed", "failed", "interrupted":
	default:
		return bad("status %q is not passed, failed or interrupted", r.Status)
	}
	if r.StartedAt.IsZero() {
		return bad("startedAt is missing")
	}
	if len(r.Command) > maxText || len(r.GitBranch) > 1024 || len(r.GitCommit) > 128 {
		return bad("command, gitBranch or gitCommit is too long")
	}
	if len(r.Tasks) > wire.MaxPushTasks {
		return bad("%d tasks; a run carries at most %d", len(r.Tasks), wire.MaxPushTasks)
	}
	seen := make(map[string]bool, len(r.Tasks))
	for i, t := range r.Tasks {
		if t.TaskID == "" || len(t.TaskID) > 1024 || seen[t.TaskID] {
			return bad("tasks[%d]: taskId %q is empty, too long or repeated", i, t.TaskID)
		}
		seen[t.TaskID] = true
		if !validStatus(t.Status) {
			return bad("tasks[%d] (%s): status %q is not one of passed, failed, blocked, timedOut, interrupted, skipped", i, t.TaskID, t.Status)
		}
		switch t.Cache {
		case wire.CacheHit, wire.CacheMiss, wire.CacheOff:
		default:
			return bad("tasks[%d] (%s): cache %q is not hit, miss or off", i, t.TaskID, t.Cache)
		}
		switch t.CacheSource {
		case "", wire.CacheSourceLocal, wire.CacheSourceRemote:
		default:
			return bad("tasks[%d] (%s): cacheSource %q is not local or remote", i, t.TaskID, t.CacheSource)
		}
		if t.Key != "" && !keyRe.MatchString(t.Key) {
			return bad("tasks[%d] (%s): key %q is not a cache key", i, t.TaskID, t.Key)
		}
		if len(t.Reason) > maxText {
			return bad("tasks[%d] (%s): reason is too long", i, t.TaskID)
		}
	}
	for k, c := range r.Components {
		if !keyRe.MatchString(k) || len(c) == 0 || c[0] != '{' {
			return bad("components[%q]: want a cache key mapped to a components object", k)
		}
	}
	return nil
}

// Push stores r for the principal's org. A workspace-pinned token may
// push only to its workspace.
func Push(ctx context.Context, pool *pgxpool.Pool, p *tokens.Principal, r *wire.PushRun) (*wire.PushResult, error) {
	if err := Check(r); err != nil {
		return nil, err
	}
	if p.Workspace != "" && p.Workspace != r.Workspace {
		return nil, &Error{Forbidden: true, Msg: fmt.Sprintf("this token is pinned to workspace %q and cannot push to %q", p.Workspace, r.Workspace)}
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("storing the run: %w", err)
	}
	defer tx.Rollback(ctx)
	wsID, err := upsertWorkspace(ctx, tx, p.OrgID, r.Workspace, r.StartedAt)
	if err != nil {
		return nil, err
	}
	res := &wire.PushResult{WorkspaceID: wsID, RunID: r.RunID}
	created, err := insertRun(ctx, tx, p.OrgID, wsID, r)
	if err != nil {
		return nil, err
	}
	if !created {
		return res, tx.Commit(ctx)
	}
	if err := insertTasks(ctx, tx, p.OrgID, wsID, r); err != nil {
		return nil, err
	}
	if err := insertComponents(ctx, tx, p.OrgID, wsID, r.Components); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `UPDATE workspaces SET run_count = run_count + 1, last_seen_at = GREATEST(last_seen_at, $2) WHERE id = $1`, wsID, r.StartedAt); err != nil {
		return nil, fmt.Errorf("counting the run: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("storing the run: %w", err)
	}
	res.Created = true
	return res, nil
}

func newWorkspaceID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "ws_" + hex.EncodeToString(b[:])
}

func upsertWorkspace(ctx context.Context, tx pgx.Tx, org int64, slug string, seen time.Time) (string, error) {
	var id string
	err := tx.QueryRow(ctx, `SELECT id FROM workspaces WHERE org_id = $1 AND slug = $2`, org, slug).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("reading workspace %s: %w", slug, err)
	}
	// Two first pushes may race: the loser reads the winner's row.
	err = tx.QueryRow(ctx, `INSERT INTO workspaces (org_id, id, slug, name, last_seen_at) VALUES ($1, $2, $3, $3, $4)
		ON CONFLICT (org_id, slug) DO UPDATE SET slug = EXCLUDED.slug RETURNING id`, org, newWorkspaceID(), slug, seen).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("creating workspace %s: %w", slug, err)
	}
	return id, nil
}

func insertRun(ctx context.Context, tx pgx.Tx, org int64, ws string, r *wire.PushRun) (bool, error) {
	var hits, local, remote, executions int
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
	tot := r.Totals
	tag, err := tx.Exec(ctx, `INSERT INTO runs (org_id, workspace_id, id, command, git_branch, git_commit, ci, started_at, ended_at, exit_code, status,
		duration_ms, tasks, passed, failed, cached, blocked, timed_out, interrupted, skipped, executions, hits, local_hits, remote_hits)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24)
		ON CONFLICT (workspace_id, id) DO NOTHING`,
		org, ws, r.RunID, r.Command, r.GitBranch, r.GitCommit, r.CI, r.StartedAt, r.EndedAt, r.ExitCode, r.Status,
		r.DurationMs, len(r.Tasks), tot.Passed, tot.Failed, tot.Cached, tot.Blocked, tot.TimedOut, tot.Interrupted, tot.Skipped,
		executions, hits, local, remote)
	if err != nil {
		return false, fmt.Errorf("storing run %s: %w", r.RunID, err)
	}
	return tag.RowsAffected() == 1, nil
}

func insertTasks(ctx context.Context, tx pgx.Tx, org int64, ws string, r *wire.PushRun) error {
	rows := make([][]any, len(r.Tasks))
	for i, t := range r.Tasks {
		blocked := t.BlockedBy
		if blocked == nil {
			blocked = []string{}
		}
		project, task := t.Project, t.Task
		if project == "" && task == "" {
			if i := strings.LastIndexByte(t.TaskID, '#'); i >= 0 {
				project, task = t.TaskID[:i], t.TaskID[i+1:]
			}
		}
		rows[i] = []any{org, ws, r.RunID, r.StartedAt, t.TaskID, project, task, t.Key, t.Status, t.Cache, t.CacheSource,
			t.ExitCode, t.StartedAt, t.DurationMs, t.PeakRSSBytes, t.CPUParallelism, t.Reason, blocked, t.TimedOut, t.EntryBytes}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"executions"}, []string{"org_id", "workspace_id", "run_id", "run_started_at", "task_id", "project", "task",
		"key", "status", "cache", "cache_source", "exit_code", "started_at", "duration_ms", "peak_rss_bytes", "cpu_parallelism", "reason",
		"blocked_by", "timed_out", "entry_bytes"}, pgx.CopyFromRows(rows))
	if err != nil {
		return fmt.Errorf("storing the tasks of run %s: %w", r.RunID, err)
	}
	return nil
}

func insertComponents(ctx context.Context, tx pgx.Tx, org int64, ws string, comps map[string]json.RawMessage) error {
	if len(comps) == 0 {
		return nil
	}
	keys := make([]string, 0, len(comps))
	bodies := make([]string, 0, len(comps))
	for k, c := range comps {
		keys = append(keys, k)
		bodies = append(bodies, string(c))
	}
	_, err := tx.Exec(ctx, `INSERT INTO components (org_id, workspace_id, key, body)
		SELECT $1, $2, k, b::jsonb FROM unnest($3::text[], $4::text[]) AS u(k, b)
		ON CONFLICT (workspace_id, key) DO NOTHING`, org, ws, keys, bodies)
	if err != nil {
		return fmt.Errorf("storing key components: %w", err)
	}
	return nil
}
