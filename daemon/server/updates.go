package server

import (
	"context"
	"net/url"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/tools"
	"github.com/vzn/vx/protocol/wire"
)

// updateBacklog bounds the finished runs and tasks waiting to be
// announced; beyond it an update is dropped rather than slowing the feed.
const updateBacklog = 4096

// resourceUpdates returns the feed's tap that turns run events (of vx run
// in a shell, tailed from .vx/events, and of runTasks) into
// notifications/resources/updated for the clients that follow
// vx://runs/latest or a task's log. The announcing happens on its own
// goroutine, so a burst of events is published at the feed's pace.
func (d *daemon) resourceUpdates(ctx context.Context) func(wire.Event) {
	ch := make(chan wire.Event, updateBacklog)
	b := &behind{log: d.log}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-ch:
				switch ev.Type {
				case wire.EventRunFinished:
					d.mcp.ResourceUpdated(tools.LatestRunURI)
				case wire.EventTaskFinished:
					d.mcp.ResourceUpdated(strings.Replace(tools.TaskLogURI, "{taskId}", url.PathEscape(ev.TaskID), 1))
				}
				if len(ch) == 0 {
					b.caughtUp()
				}
			}
		}
	}()
	return func(ev wire.Event) {
		if ev.Type == wire.EventRunFinished || (ev.Type == wire.EventTaskFinished && ev.TaskID != "") {
			select {
			case ch <- ev:
			default:
				b.drop(ev.Type)
			}
		}
	}
}

// behind logs the updates the tap drops: one warning when it starts
// dropping, and one with the count once the announcer has caught up (a
// burst of 10,000 task ends was a line of vxd.log each).
type behind struct {
	mu      sync.Mutex
	dropped int
	log     zerolog.Logger
}

// drop notes one dropped update of an event of type typ.
func (b *behind) drop(typ string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropped++
	if b.dropped == 1 {
		b.log.Warn().Str("event", typ).Msg("resource updates are behind: dropping some")
	}
}

// caughtUp says how many were dropped since the announcer fell behind.
func (b *behind) caughtUp() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped > 0 {
		b.log.Warn().Int("dropped", b.dropped).Msg("resource updates caught up")
		b.dropped = 0
	}
}
