package vx

import (
	"os"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/protocol/layout"
)

// changeSource lets a run ask the workspace's vxd, when one is up, what
// changed since the last run. It never starts a daemon: with no discovery
// file there is nothing to ask (nil), and the run stats every file, as
// without a daemon, without reading the journal state either.
//
// A process on the discovery file's port that cannot prove it is the
// workspace's vxd is named on stderr, and the run goes on without it.
func changeSource(s *cmdline.IO, root string) journal.ChangeSource {
	if _, err := os.Stat(layout.Discovery(root)); err != nil {
		return nil
	}
	return (&client.Client{Root: root, Notice: s.Err}).Changes
}
