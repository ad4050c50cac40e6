// Package ingest stores the runs vx pushes: one statement per run, the
// workspace row created on its first push, and idempotent per (workspace,
// run id) so that a run pushed twice (an outbox replay, vx push --all) is
// one run.
package ingest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
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

// checkRun refuses a document that is not a finished run.
func checkRun(r *wire.PushRun) error {
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
	if !fitsInt4(r.ExitCode) {
		return bad("exitCode %d is out of range", *r.ExitCode)
	}
	if len(r.Tasks) > wire.MaxPushTasks {
		return bad("%d tasks; a run carries at most %d", len(r.Tasks), wire.MaxPushTasks)
	}
	seen := make(map[string]bool, len(r.Tasks))
	failures := 0
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
		if !fitsInt4(t.ExitCode) {
			return bad("tasks[%d] (%s): exitCode %d is out of range", i, t.TaskID, *t.ExitCode)
		}
		if len(t.Reason) > maxText {
			return bad("tasks[%d] (%s): reason is too long", i, t.TaskID)
		}
		if t.Failure != nil {
			if failures++; failures > wire.MaxPushFailures {
				return bad("tasks[%d] (%s): more than %d tasks carry a failure", i, t.TaskID, wire.MaxPushFailures)
			}
			if err := checkFailure(t.Failure); err != nil {
				return bad("tasks[%d] (%s): failure: %v", i, t.TaskID, err)
			}
		}
	}
	keys := make(map[string]bool, len(r.Tasks))
	for _, t := range r.Tasks {
		keys[t.Key] = true
	}
	for k, c := range r.Components {
		if !keyRe.MatchString(k) || len(c) == 0 || c[0] != '{' {
			return bad("components[%q]: want a cache key mapped to a components object", k)
		}
		// Only the run's own keys: no run writes (first-writer-wins)
		// components for keys it did not compute, nor more of them than
		// it has tasks.
		if !keys[k] {
			return bad("components[%q]: no task of the run has that key", k)
		}
	}
	return nil
}

// checkFailure refuses a failure past the wire's bounds.
func checkFailure(f *wire.PushFailure) error {
	if len(f.Excerpt) > wire.MaxFailureExcerpt {
		return fmt.Errorf("excerpt of %d bytes; at most %d", len(f.Excerpt), wire.MaxFailureExcerpt)
	}
	if len(f.Locations) > wire.MaxFailureLocations {
		return fmt.Errorf("%d locations; at most %d", len(f.Locations), wire.MaxFailureLocations)
	}
	for j, l := range f.Locations {
		if l.File == "" || len(l.File) > wire.MaxFailureText || len(l.Message) > wire.MaxFailureText || len(l.Tool) > 16 || l.Line < 0 || l.Col < 0 {
			return fmt.Errorf("locations[%d]: want a file, a line and column >= 0, and text within %d bytes", j, wire.MaxFailureText)
		}
	}
	return nil
}

// Push stores r for the principal's org. A workspace-pinned token may
// push only to its workspace.
func Push(ctx context.Context, pool *pgxpool.Pool, p *tokens.Principal, r *wire.PushRun) (*wire.PushResult, error) {
	if err := checkRun(r); err != nil {
		return nil, err
	}
	if p.Workspace != "" && p.Workspace != r.Workspace {
		return nil, &Error{Forbidden: true, Msg: fmt.Sprintf("this token is pinned to workspace %q and cannot push to %q", p.Workspace, r.Workspace)}
	}
	// One statement, one round trip; a lost race to create the workspace
	// (its row is not in this statement's snapshot) is retried once.
	for attempt := 0; ; attempt++ {
		res, err := store(ctx, pool, p.OrgID, r)
		// A value the database refuses (class 22, data exception: a NUL
		// in a string, a number out of range) is the document's fault:
		// sending it again cannot help, so it is a refusal, not a 503 that
		// would hold the pusher's outbox forever.
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && strings.HasPrefix(pgErr.Code, "22") {
			return nil, bad("the run holds a value the database cannot store: %s", pgErr.Message)
		}
		if err != nil || res.WorkspaceID != "" || attempt > 0 {
			return res, err
		}
	}
}

func newWorkspaceID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "ws_" + hex.EncodeToString(b[:])
}

// Known answers which of the asked run ids the principal's org stores
// for the workspace (none when the workspace does not exist yet).
func Known(ctx context.Context, pool *pgxpool.Pool, p *tokens.Principal, q *wire.KnownRequest) (*wire.KnownResponse, error) {
	if err := tokens.CheckSlug(q.Workspace); err != nil {
		return nil, bad("workspace: %v", err)
	}
	if p.Workspace != "" && p.Workspace != q.Workspace {
		return nil, &Error{Forbidden: true, Msg: fmt.Sprintf("this token is pinned to workspace %q, not %q", p.Workspace, q.Workspace)}
	}
	if len(q.RunIDs) > wire.MaxKnownQuery {
		return nil, bad("runIds: %d ids; ask about at most %d at a time", len(q.RunIDs), wire.MaxKnownQuery)
	}
	rows, err := pool.Query(ctx, `SELECT r.id FROM runs r JOIN workspaces w ON w.id = r.workspace_id
		WHERE w.org_id = $1 AND w.slug = $2 AND r.org_id = $1 AND r.id = ANY($3::text[]) ORDER BY r.id`, p.OrgID, q.Workspace, q.RunIDs)
	if err != nil {
		return nil, fmt.Errorf("reading known runs: %w", err)
	}
	out := &wire.KnownResponse{Known: []string{}}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("reading known runs: %w", err)
		}
		out.Known = append(out.Known, id)
	}
	return out, rows.Err()
}

// fitsInt4 reports whether an exit code fits its integer column.
func fitsInt4(n *int) bool {
	return n == nil || *n >= math.MinInt32 && *n <= math.MaxInt32
}
