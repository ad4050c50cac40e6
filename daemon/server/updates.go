package server

import (
	"context"
	"net/url"
	"strings"

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
			}
		}
	}()
	return func(ev wire.Event) {
		if ev.Type == wire.EventRunFinished || (ev.Type == wire.EventTaskFinished && ev.TaskID != "") {
			select {
			case ch <- ev:
			default:
				d.log.Warn().Str("event", ev.Type).Msg("resource updates are behind: one dropped")
			}
		}
	}
}
