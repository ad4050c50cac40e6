package server

import (
	"net/url"
	"strings"

	"github.com/vzn/vx/daemon/tools"
	"github.com/vzn/vx/protocol/wire"
)

// resourceUpdates turns run events (of vx run in a shell, tailed from
// .vx/events, and of runTasks) into notifications/resources/updated for
// the clients that follow vx://runs/latest or a task's log.
func (d *daemon) resourceUpdates(ev wire.Event) {
	switch ev.Type {
	case wire.EventRunFinished:
		d.mcp.ResourceUpdated(tools.LatestRunURI)
	case wire.EventTaskFinished:
		if ev.TaskID != "" {
			d.mcp.ResourceUpdated(strings.Replace(tools.TaskLogURI, "{taskId}", url.PathEscape(ev.TaskID), 1))
		}
	}
}
