// Package teamtools is the platform's MCP catalog: the seven team tools,
// each an operation declared here (name, annotations, the typed input of
// platform/teamops) and served by the MCP server's AddOperation like vxd's own —
// the same decoding, schemas and refusals (package opkit) — calling one
// teamops function as the request's principal. vxd and the platform share
// one MCP server; this is the second catalog.
package teamtools

import (
	"context"
	"errors"

	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/platform/teamops"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

// errNoPrincipal is a wiring bug: every /mcp request is authenticated.
var errNoPrincipal = errors.New("internal error: the request carries no principal")

// define declares a team operation answered by run as the request's
// principal.
func define[In, Out any](spec opkit.Spec[In, Out], run func(e *teamops.Env, ctx context.Context, p *tokens.Principal, in In) (*Out, error)) *opkit.Operation[*teamops.Env] {
	return opkit.Define(spec, func(ctx context.Context, e *teamops.Env, in In) (*Out, error) {
		p := tokens.From(ctx)
		if p == nil {
			return nil, errNoPrincipal
		}
		return run(e, ctx, p, in)
	})
}

// operations are the team operations, in catalog order.
var operations = []*opkit.Operation[*teamops.Env]{
	define(opkit.Spec[teamops.WorkspacesInput, teamops.WorkspacesOutput]{Name: "list_workspaces", Title: "List workspaces", ReadOnly: true,
		Description: "Every workspace of the org (or the one workspace names): id, name, slug, when it was last seen and how many runs it pushed, most recently seen first."},
		(*teamops.Env).ListWorkspaces),
	define(opkit.Spec[teamops.ListRunsInput, teamops.RunsOutput]{Name: "list_runs", Title: "List runs", ReadOnly: true,
		Description: "Recent vx run invocations of a workspace, newest first: command, branch and " +
			"commit, CI, status, task/failed/hit counts (local and remote), duration. limit 1..500 (default 50) is clamped " +
			"and the answer says the limit applied."},
		(*teamops.Env).ListRuns),
	define(opkit.Spec[teamops.RunInput, teamops.RunOutput]{Name: "get_run", Title: "Get a run", ReadOnly: true,
		Description: "One run in full: the invocation header and every task's outcome (status, cache " +
			"and its source, key, exit code, duration, peak RSS, CPU parallelism, failure reason, blockedBy, timedOut). " +
			"found is false for an id the workspace does not have."},
		(*teamops.Env).GetRun),
	define(opkit.Spec[teamops.TrendsInput, teamops.TrendsOutput]{Name: "run_trends", Title: "Run trends", ReadOnly: true,
		Description: "Activity over time per hour or day (UTC), newest first: runs, failed runs, task " +
			"executions, cache hits (local and remote) and the p50 run duration. limit 1..1000 (default 24) is clamped. " + wire.ExecutionsDefined},
		(*teamops.Env).RunTrends),
	define(opkit.Spec[teamops.Scope, teamops.CacheStatsOutput]{Name: "cache_stats", Title: "Cache statistics", ReadOnly: true,
		Description: "Cache effectiveness of a workspace: the entries its runs wrote and their bytes, " +
			"runs, executions and hits of the last 24 hours with the hit rate, and hits split between the local cache and " +
			"the remote cache. " + wire.ExecutionsDefined},
		(*teamops.Env).CacheStats),
	define(opkit.Spec[teamops.WhyInput, teamops.WhyOutput]{Name: "why_did_rerun", Title: "Why did this re-run", ReadOnly: true,
		Description: "Why a task re-executed in a run: its key against the task's previous execution " +
			"in the workspace, and the per-component diff (files, global inputs, env names, definition fields, upstream " +
			"keys) of the two keys."},
		(*teamops.Env).WhyDidRerun),
	define(opkit.Spec[teamops.RunInput, teamops.CompareOutput]{Name: "compare_runs", Title: "Compare runs", ReadOnly: true,
		Description: "A run against the workspace's immediately previous run: per-task status, cache, duration and key deltas, and totals."},
		(*teamops.Env).CompareRuns),
}

// Register adds the team operations to srv's tools, answering over e,
// and returns the tools added.
func Register(srv *mcpserver.Server, e *teamops.Env) []mcpserver.Tool {
	out := make([]mcpserver.Tool, 0, len(operations))
	for _, op := range operations {
		out = append(out, srv.AddOperation(op.Bind(e), nil))
	}
	return out
}
