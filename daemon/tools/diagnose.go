package tools

import (
	"context"

	"github.com/vzn/vx/daemon/mcpserver"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/protocol/wire"
)

// DiagnoseTool is vx doctor as a read-only tool, answered inside vxd
// (the daemon check is the daemon itself). vx is the vx executable.
func DiagnoseTool(e *ops.Env, daemon func() *wire.Status, vx string) Def {
	return Def{Name: "diagnose", Title: "Diagnose the workspace", ReadOnly: true, Output: &ops.DoctorOutput{},
		Description: "What stops vx working here? vx doctor --format json: git present and the workspace a repository, .vx/ writable, the run history's integrity, the configuration loading, vx.lock current, the daemon, the remote cache and the platform (reachable and the token accepted, when configured), vx on PATH for MCP clients; each check ok, problem or skipped, a problem with its fix; ok false when any problem; mcpConfig is the client configuration to use.",
		Run: func(ctx context.Context, _ *mcpserver.Call, v Values) (any, error) {
			return ops.Doctor(ctx, e, ops.DoctorInput{Self: daemon, VX: vx})
		}}
}
