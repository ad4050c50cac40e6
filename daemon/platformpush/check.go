package platformpush

import (
	"context"
	"encoding/json"

	"github.com/vzn/vx/protocol/wire"
)

// Check asks the platform whether the target's token may push the target's
// workspace, reading nothing: POST /v1/runs/known with no run ids, a route
// of ingest scope that refuses an unknown or revoked token (401), a token
// of another scope or pinned to another workspace (403). The token goes in
// the Authorization header only. A refusal is an *Error; anything else is
// the platform not being reached.
func Check(ctx context.Context, t *Target) error {
	body, _ := json.Marshal(wire.KnownRequest{Workspace: t.Workspace, RunIDs: []string{}})
	var res wire.KnownResponse
	return post(ctx, t, wire.PlatformKnownPath, body, &res)
}
