package tools

import (
	"context"

	"github.com/vzn/vx/daemon/docsearch"
	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/migrate"
	"github.com/vzn/vx/daemon/ops"
)

// AdoptionTools are the tools of the adoption verbs (lock, init, docs) and
// the latest run: adapters over the ops functions those verbs call.
func AdoptionTools(e *ops.Env) []Def {
	return []Def{
		LastRunTool(e),
		{Name: "checkLock", Title: "Check the config lock", ReadOnly: true, Output: &lockfile.CheckResult{},
			Description: "Is the config lock current? vx lock --check --format json: upToDate, audited, notAudited, and each drift in problems (task id, field, locked value, current value; secrets masked); exitCode 1 on drift.",
			Run: func(ctx context.Context, _ *mcpserver.Call, _ Values) (any, error) {
				return ops.CheckLock(ctx, e)
			}},
		{Name: "searchDocs", Title: "Search the docs", ReadOnly: true, Output: &docsearch.Result{},
			Description: "Where is X documented? vx docs QUERY --format json: the reference sections (config keys, verbs and flags, tools and arguments, troubleshooting) holding every word of the query, each whole with its stable URL, best first. No network.",
			Args: []Arg{{Name: "query", Kind: KindString, Required: true, Desc: "words to find, e.g. \"cache key\" or \"mcp.run\""},
				{Name: "limit", Kind: KindLimit, Desc: "sections, 1..50 (default 5), clamped"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				in := ops.SearchDocsInput{Query: v.Str("query")}
				if v.Has("limit") {
					limit := v.Limit("limit")
					in.Limit = &limit
				}
				return ops.SearchDocs(ctx, in)
			}},
		{Name: "planInit", Title: "Plan vx adoption", ReadOnly: true, Output: &migrate.Plan{},
			Description: "What would adopting vx write here? vx init --dry --format json: each file with its full text and whether it is new, kept or replaced, todos (what could not be translated, with file:line:col and the reason), notes and next steps. Reads turbo.json, nx.json/project.json or package.json workspaces. Nothing is written. mode \"force\" plans replacing an existing vx.workspace.json.",
			Args:        []Arg{{Name: "mode", Kind: KindEnum, Enum: []string{ops.InitKeep, ops.InitForce}, Desc: "keep (default): an existing vx.workspace.json is kept; force: plan replacing it"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
				return ops.PlanInit(ctx, ops.InitInput{Mode: v.Str("mode"), Dir: e.Root})
			}},
	}
}
