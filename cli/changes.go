package cli

import (
	"context"

	"github.com/vzn/vx/client"
	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/wire"
)

// changeSource lets a run ask the workspace's vxd, when one is up, what
// changed since the last run; it never starts a daemon (no discovery file:
// the run stats every file, as without one).
func changeSource(root string) hashing.ChangeSource {
	c := &client.Client{Root: root}
	return func(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error) {
		return c.Changes(ctx, epoch, seq)
	}
}
