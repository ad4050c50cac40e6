package tools

import "github.com/vzn/vx/daemon/mcpserver"

// Build turns definitions that need no workspace (another catalog, such
// as the team platform's) into tools: the same argument checks, schemas
// and refusals as vxd's own.
func Build(defs []Def) []mcpserver.Tool {
	out := make([]mcpserver.Tool, 0, len(defs))
	for _, d := range defs {
		d.env = nil
		out = append(out, d.tool())
	}
	return out
}
