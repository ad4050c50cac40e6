// Package teamtools is the platform's MCP catalog: the seven team tools,
// each a thin adapter that checks its arguments with daemon/tools' checks
// (never coercing) and calls one operation of platform/teamops as the
// request's principal. vxd and the platform share one MCP server; this is
// the second catalog.
package teamtools

import (
	"context"
	"errors"

	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/tools"
	"github.com/vzn/vx/platform/teamops"
	"github.com/vzn/vx/platform/tokens"
)

var (
	workspaceArg = tools.Arg{Name: "workspace", Kind: tools.KindString, Desc: "a workspace id from list_workspaces (or its slug); default: the org's most recently seen workspace. Ignored for a workspace-pinned token"}
	runIDArg     = tools.Arg{Name: "runId", Kind: tools.KindRunID, Required: true, Desc: "a vx run id (as vx last --list prints it) or a unique prefix"}
	taskIDArg    = tools.Arg{Name: "taskId", Kind: tools.KindTaskID, Required: true, Desc: "a task id, project#task (e.g. web#build)"}
)

func scope(v tools.Values) teamops.Scope {
	return teamops.Scope{Workspace: v.Str("workspace"), Set: v.Has("workspace")}
}

// errNoPrincipal is a wiring bug: every /mcp request is authenticated.
var errNoPrincipal = errors.New("internal error: the request carries no principal")

type runFunc func(ctx context.Context, p *tokens.Principal, v tools.Values) (any, error)

func as(run runFunc) func(context.Context, *mcpserver.Call, tools.Values) (any, error) {
	return func(ctx context.Context, _ *mcpserver.Call, v tools.Values) (any, error) {
		p := tokens.From(ctx)
		if p == nil {
			return nil, errNoPrincipal
		}
		return run(ctx, p, v)
	}
}

// Defs are the seven tools' definitions.
func Defs(e *teamops.Env) []tools.Def {
	return []tools.Def{
		{Name: "list_workspaces", Title: "List workspaces", ReadOnly: true, Output: &teamops.WorkspacesOutput{},
			Description: "Every workspace of the org: id, name, slug, when it was last seen and how many runs it pushed, most recently seen first.",
			Run: as(func(ctx context.Context, p *tokens.Principal, v tools.Values) (any, error) {
				return e.ListWorkspaces(ctx, p)
			})},
		{Name: "list_runs", Title: "List runs", ReadOnly: true, Output: &teamops.RunsOutput{},
			Description: "Recent vx run invocations of a workspace, newest first: command, branch and commit, CI, status, task/failed/hit counts (local and remote), duration. limit 1..500 (default 50) is clamped and the answer says the limit applied.",
			Args:        []tools.Arg{workspaceArg, {Name: "limit", Kind: tools.KindLimit, Desc: "runs, 1..500 (default 50), clamped"}},
			Run: as(func(ctx context.Context, p *tokens.Principal, v tools.Values) (any, error) {
				return e.ListRuns(ctx, p, teamops.ListRunsInput{Scope: scope(v), Limit: v.Limit("limit"), LimitSet: v.Has("limit")})
			})},
		{Name: "get_run", Title: "Get a run", ReadOnly: true, Output: &teamops.RunOutput{},
			Description: "One run in full: the invocation header and every task's outcome (status, cache and its source, key, exit code, duration, peak RSS, CPU parallelism, failure reason, blockedBy, timedOut). found is false for an id the workspace does not have.",
			Args:        []tools.Arg{runIDArg, workspaceArg},
			Run: as(func(ctx context.Context, p *tokens.Principal, v tools.Values) (any, error) {
				return e.GetRun(ctx, p, teamops.RunInput{Scope: scope(v), RunID: v.Str("runId")})
			})},
		{Name: "run_trends", Title: "Run trends", ReadOnly: true, Output: &teamops.TrendsOutput{},
			Description: "Activity over time per hour or day (UTC), newest first: runs, failed runs, task executions, cache hits (local and remote) and the p50 run duration. limit 1..1000 (default 24) is clamped.",
			Args: []tools.Arg{workspaceArg, {Name: "bucket", Kind: tools.KindEnum, Enum: []string{"hour", "day"}, Desc: "bucket size (default hour)"},
				{Name: "limit", Kind: tools.KindLimit, Desc: "buckets, 1..1000 (default 24), clamped"}},
			Run: as(func(ctx context.Context, p *tokens.Principal, v tools.Values) (any, error) {
				return e.RunTrends(ctx, p, teamops.TrendsInput{Scope: scope(v), Bucket: v.Str("bucket"), Limit: v.Limit("limit"), LimitSet: v.Has("limit")})
			})},
		{Name: "cache_stats", Title: "Cache statistics", ReadOnly: true, Output: &teamops.CacheStatsOutput{},
			Description: "Cache effectiveness of a workspace: the entries its runs wrote and their bytes, runs, executions and hits of the last 24 hours with the hit rate, and hits split between the local cache and the remote cache.",
			Args:        []tools.Arg{workspaceArg},
			Run: as(func(ctx context.Context, p *tokens.Principal, v tools.Values) (any, error) {
				return e.CacheStats(ctx, p, scope(v))
			})},
		{Name: "why_did_rerun", Title: "Why did this re-run", ReadOnly: true, Output: &teamops.WhyOutput{},
			Description: "Why a task re-executed in a run: its key against the task's previous execution in the workspace, and the per-component diff (files, global inputs, env names, definition fields, upstream keys) of the two keys.",
			Args:        []tools.Arg{runIDArg, taskIDArg, workspaceArg},
			Run: as(func(ctx context.Context, p *tokens.Principal, v tools.Values) (any, error) {
				return e.WhyDidRerun(ctx, p, teamops.WhyInput{Scope: scope(v), RunID: v.Str("runId"), TaskID: v.Str("taskId")})
			})},
		{Name: "compare_runs", Title: "Compare runs", ReadOnly: true, Output: &teamops.CompareOutput{},
			Description: "A run against the workspace's immediately previous run: per-task status, cache, duration and key deltas, and totals.",
			Args:        []tools.Arg{runIDArg, workspaceArg},
			Run: as(func(ctx context.Context, p *tokens.Principal, v tools.Values) (any, error) {
				return e.CompareRuns(ctx, p, teamops.RunInput{Scope: scope(v), RunID: v.Str("runId")})
			})},
	}
}

// Catalog is the tools for the platform's MCP server.
func Catalog(e *teamops.Env) []mcpserver.Tool { return tools.Build(Defs(e)) }
