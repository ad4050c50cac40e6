package vx

import (
	"os"

	"github.com/vzn/vx/client"
	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/layout"
)

// changeSource lets a run ask the workspace's vxd, when one is up, what
// changed since the last run. It never starts a daemon: with no discovery
// file there is nothing to ask (nil), and the run stats every file, as
// without a daemon, without reading the journal state either.
func changeSource(root string) hashing.ChangeSource {
	if _, err := os.Stat(layout.Discovery(root)); err != nil {
		return nil
	}
	return (&client.Client{Root: root}).Changes
}
