package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/opkit"
)

// PluginTools serves each plugin verb declared readOnly with an
// inputSchema as a tool of the verb's name, through the runPluginCommand
// operation: its arguments are checked against the verb's schema, its
// annotations are a read-only operation's. A verb whose name a tool of
// have already takes, or whose schema does not resolve, is not served.
func PluginTools(e *ops.Env, have []mcpserver.Tool) []mcpserver.Tool {
	m, err := e.CurrentModel()
	if err != nil {
		return nil
	}
	op := ops.PluginCommandOperation()
	taken := map[string]bool{}
	for _, t := range have {
		taken[t.Def.Name] = true
	}
	var out []mcpserver.Tool
	for _, pt := range ops.PluginTools(m) {
		if taken[pt.Name] {
			continue
		}
		if _, err := opkit.ResolveSchema(pt.Schema); err != nil {
			continue
		}
		b := op.Bind(e)
		b.Name, b.Title = pt.Name, pt.Summary
		b.Description = fmt.Sprintf("%s (plugin %s's read-only command; on the command line: vx %s). Answers the plugin's output and JSON result.", pt.Summary, pt.Plugin, pt.Name)
		b.ReadOnly, b.Idempotent, b.CLIOnly = true, true, false
		verb := pt.Name
		out = append(out, mcpserver.OperationTool(b, &mcpserver.OperationOptions{Schema: pt.Schema,
			Run: func(ctx context.Context, _ *mcpserver.Call, v any) (any, error) {
				return b.Call(ctx, &ops.PluginCommandInput{Command: verb, Input: v.(json.RawMessage), Tool: true})
			}}))
	}
	return out
}
