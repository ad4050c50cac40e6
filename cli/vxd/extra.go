package vxd

import (
	"context"

	"github.com/vzn/vx/daemon/docsearch"
	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/migrate"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/tools"
)

// ExtraTools are the daemon's tools for the adoption verbs (lock, init,
// docs) and the latest run, adapters over the same functions those verbs
// call.
func ExtraTools(e *ops.Env) []tools.Def {
	return []tools.Def{
		tools.LastRunTool(e),
		tools.Def{Name: "checkLock", Title: "Check the config lock", ReadOnly: true, Output: &lockfile.CheckResult{},
			Description: "Is the config lock current? vx lock --check --format json: upToDate, audited, notAudited, and each drift in problems (task id, field, locked value, current value; secrets masked); exitCode 1 on drift.",
			Run: func(ctx context.Context, _ *mcpserver.Call, _ tools.Values) (any, error) {
				m, err := e.CurrentModel()
				if err != nil {
					return nil, err
				}
				return lockfile.Check(m, e.Masker)
			}},
		{Name: "searchDocs", Title: "Search the docs", ReadOnly: true, Output: &docsearch.Result{},
			Description: "Where is X documented? vx docs QUERY --format json: the reference sections (config keys, verbs and flags, tools and arguments, troubleshooting) holding every word of the query, each whole with its stable URL, best first. No network.",
			Args: []tools.Arg{{Name: "query", Kind: tools.KindString, Required: true, Desc: "words to find, e.g. \"cache key\" or \"mcp.run\""},
				{Name: "limit", Kind: tools.KindLimit, Desc: "sections, 1..50 (default 5), clamped"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v tools.Values) (any, error) {
				in := ops.SearchDocsInput{Query: v.Str("query")}
				if v.Has("limit") {
					limit := v.Limit("limit")
					in.Limit = &limit
				}
				return ops.SearchDocs(ctx, in)
			}},
		{Name: "planInit", Title: "Plan vx adoption", ReadOnly: true, Output: &migrate.Plan{},
			Description: "What would adopting vx write here? vx init --dry --format json: each file with its full text and whether it is new, kept or replaced, todos (what could not be translated, with file:line:col and the reason), notes and next steps. Reads turbo.json, nx.json/project.json or package.json workspaces. Nothing is written. mode \"force\" plans replacing an existing vx.workspace.json.",
			Args:        []tools.Arg{{Name: "mode", Kind: tools.KindEnum, Enum: []string{"keep", "force"}, Desc: "keep (default): an existing vx.workspace.json is kept; force: plan replacing it"}},
			Run: func(ctx context.Context, _ *mcpserver.Call, v tools.Values) (any, error) {
				return migrate.PlanInit(ctx, e.Root, &migrate.Options{Force: v.Str("mode") == "force"})
			}},
	}
}
