// Package runevents is the writing side of vxd's live feed for runs started
// outside the daemon (from a shell, CI, another tool): such a run appends
// its events to one JSON lines file under .vx/daemon/events, which vxd
// tails. Only files, never a socket: vx run stays offline, links no part of
// the daemon, and works the same with no daemon.
package runevents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// Open returns a writer of this run's events when a daemon serves the
// workspace (its events directory and discovery file exist), else nil.
func Open(root string) (func(wire.Event), func()) {
	dir := layout.Events(root)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil
	}
	if _, err := os.Stat(layout.Discovery(root)); err != nil {
		return nil, nil
	}
	var (
		mu sync.Mutex
		f  *os.File
	)
	write := func(e wire.Event) {
		mu.Lock()
		defer mu.Unlock()
		if f == nil {
			if e.RunID == "" {
				return
			}
			var err error
			f, err = os.OpenFile(filepath.Join(dir, e.RunID+".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				return
			}
		}
		b, _ := json.Marshal(e)
		_, _ = f.Write(append(b, '\n'))
	}
	closeFn := func() {
		mu.Lock()
		defer mu.Unlock()
		if f != nil {
			f.Close()
		}
	}
	return write, closeFn
}
