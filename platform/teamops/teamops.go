// Package teamops is the platform's team operations, one function each:
// list_workspaces, list_runs, get_run, run_trends, cache_stats,
// why_did_rerun and compare_runs. Every query names the caller's org in
// its WHERE clause, so tenancy is the query's, not a filter applied after.
package teamops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/platform/tokens"
)

// Env is what the operations read.
type Env struct {
	Pool *pgxpool.Pool
}

// Bounds of the limits.
const (
	runsDefault, runsMax     = 50, 500
	trendsDefault, trendsMax = 24, 1000
)

// Scope names the workspace an operation reads: Workspace is the
// argument (an id from list_workspaces, or a slug), nil when not given.
type Scope struct {
	Workspace *string `json:"workspace,omitempty" jsonschema:"a workspace id from list_workspaces (or its slug); default: the org's most recently seen workspace. Ignored for a workspace-pinned token"`
}

// WorkspacesInput selects list_workspaces: every workspace of the org, or
// the one named (the same argument as Scope, with another default).
type WorkspacesInput struct {
	Workspace *string `json:"workspace,omitempty" jsonschema:"a workspace id from list_workspaces, or its slug: list only it; default: all the org's workspaces. Ignored for a workspace-pinned token"`
}

// WorkspaceRef names the workspace an answer is about.
type WorkspaceRef struct {
	ID   string `json:"id"`
	Slug string `json:"slug"`
	// Pinned is true when the token is pinned to this workspace (any
	// workspace argument was ignored).
	Pinned bool `json:"pinned,omitempty"`
}

func argErr(arg, format string, a ...any) error {
	return &opkit.Refusal{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}

// ErrNoWorkspace is returned when the org has no workspace to default to.
var ErrNoWorkspace = errors.New("this org has no workspace yet: a workspace appears with its first pushed run")

// workspace resolves the workspace of a read for principal p: a pinned
// token's own, else the argument, else the org's most recently seen.
func (e *Env) workspace(ctx context.Context, p *tokens.Principal, s Scope) (*WorkspaceRef, error) {
	ref := &WorkspaceRef{}
	var err error
	switch {
	case p.Workspace != "":
		ref.Pinned = true
		err = e.Pool.QueryRow(ctx, `SELECT id, slug FROM workspaces WHERE org_id = $1 AND slug = $2`, p.OrgID, p.Workspace).Scan(&ref.ID, &ref.Slug)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("workspace %q, which this token is pinned to, has no runs yet", p.Workspace)
		}
	case s.Workspace != nil:
		err = e.Pool.QueryRow(ctx, `SELECT id, slug FROM workspaces WHERE org_id = $1 AND (id = $2 OR slug = $2) ORDER BY id = $2 DESC LIMIT 1`, p.OrgID, *s.Workspace).Scan(&ref.ID, &ref.Slug)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, argErr("workspace", "unknown workspace %q; list_workspaces lists the workspaces", *s.Workspace)
		}
	default:
		err = e.Pool.QueryRow(ctx, `SELECT id, slug FROM workspaces WHERE org_id = $1 ORDER BY last_seen_at DESC, id LIMIT 1`, p.OrgID).Scan(&ref.ID, &ref.Slug)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, ErrNoWorkspace
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the workspace: %w", err)
	}
	return ref, nil
}

// clamp applies a limit's bounds and says when it moved.
func clamp(l *opkit.Limit, def, lo, hi int) (int, string) {
	given := l != nil
	n := 0
	if given {
		n = int(*l)
	}
	switch {
	case !given:
		return def, ""
	case n < lo:
		return lo, fmt.Sprintf("limit raised to the minimum: %d (limit accepts %d..%d)", lo, lo, hi)
	case n > hi:
		return hi, fmt.Sprintf("limit clamped to the maximum: %d (limit accepts %d..%d)", hi, lo, hi)
	}
	return n, ""
}

// Workspace is one row of list_workspaces.
type Workspace struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"createdAt"`
	LastSeen  time.Time `json:"lastSeen"`
	RunCount  int64     `json:"runCount"`
}

// WorkspacesOutput answers list_workspaces.
type WorkspacesOutput struct {
	Org        string      `json:"org"`
	Workspaces []Workspace `json:"workspaces"`
}

// ListWorkspaces answers list_workspaces: the org's workspaces, most
// recently seen first, or the one in.Workspace names (an unknown one is
// refused). A pinned token sees its own only, whatever the argument.
func (e *Env) ListWorkspaces(ctx context.Context, p *tokens.Principal, in WorkspacesInput) (*WorkspacesOutput, error) {
	id := ""
	if p.Workspace == "" && in.Workspace != nil {
		ref, err := e.workspace(ctx, p, Scope{Workspace: in.Workspace})
		if err != nil {
			return nil, err
		}
		id = ref.ID
	}
	rows, err := e.Pool.Query(ctx, `SELECT id, name, slug, created_at, last_seen_at, run_count FROM workspaces
		WHERE org_id = $1 AND ($2 = '' OR slug = $2) AND ($3 = '' OR id = $3) ORDER BY last_seen_at DESC, id`, p.OrgID, p.Workspace, id)
	if err != nil {
		return nil, fmt.Errorf("listing workspaces: %w", err)
	}
	out := &WorkspacesOutput{Org: p.Org, Workspaces: []Workspace{}}
	for rows.Next() {
		var w Workspace
		if err := rows.Scan(&w.ID, &w.Name, &w.Slug, &w.CreatedAt, &w.LastSeen, &w.RunCount); err != nil {
			return nil, fmt.Errorf("listing workspaces: %w", err)
		}
		out.Workspaces = append(out.Workspaces, w)
	}
	return out, rows.Err()
}
