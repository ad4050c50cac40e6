package vxd

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/client"
	"github.com/vzn/vx/protocol/wire"
)

// watchStatus redraws the status table from the daemon's event feed: a
// redraw per event (at most a few a second), plus the latest events.
func watchStatus(ctx context.Context, s *cmdline.IO, c *client.Client) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, d, err := c.Status(ctx)
	if err != nil {
		if client.IsNotRunning(err) {
			return notRunning(s, c.Root, "", err)
		}
		return err
	}
	conn, _, err := websocket.Dial(ctx, fmt.Sprintf("ws://127.0.0.1:%d%s", d.Port, wire.EventsPath), &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + d.Token}},
		// The token goes only on a connection the daemon proved.
		HTTPClient: &http.Client{Transport: c.Transport()},
	})
	if err != nil {
		return fmt.Errorf("connecting to vxd's event feed: %w", err)
	}
	defer conn.CloseNow()
	events := make(chan wire.Event, 64)
	go func() {
		defer close(events)
		for {
			var e wire.Event
			if err := wsjson.Read(ctx, conn, &e); err != nil {
				return
			}
			events <- e
		}
	}()
	var recent []string
	redraw := func() {
		var b strings.Builder
		b.WriteString("\x1b[H\x1b[2J")
		renderStatus(&b, st)
		b.WriteString("\nlive events (Ctrl-C to quit):\n")
		for _, l := range recent {
			b.WriteString("  " + l + "\n")
		}
		fmt.Fprint(s.Out, b.String())
	}
	redraw()
	throttle := time.NewTimer(time.Hour)
	throttle.Stop()
	pending := false
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(s.Out)
			return nil
		case e, ok := <-events:
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("vxd closed the event feed (stopped?)")
			}
			recent = append(recent, describeEvent(e))
			if len(recent) > 12 {
				recent = recent[len(recent)-12:]
			}
			if !pending {
				pending = true
				throttle.Reset(200 * time.Millisecond)
			}
		case <-throttle.C:
			pending = false
			if fresh, _, err := c.Status(ctx); err == nil {
				st = fresh
			}
			redraw()
		}
	}
}

func describeEvent(e wire.Event) string {
	t := e.Time.Local().Format("15:04:05")
	switch e.Type {
	case wire.EventRunStarted:
		return fmt.Sprintf("%s run %s started: %s (%d tasks)", t, e.RunID, e.Command, e.Tasks)
	case wire.EventTaskStarted:
		return fmt.Sprintf("%s   %s started", t, e.TaskID)
	case wire.EventTaskFinished:
		return fmt.Sprintf("%s   %s %s (%s, %s)", t, e.TaskID, e.Status, e.Cache, cmdline.Ms(e.DurationMs))
	case wire.EventRunFinished:
		if e.Summary != nil {
			return fmt.Sprintf("%s run %s %s in %s", t, e.RunID, e.Summary.Status, cmdline.Ms(e.Summary.DurationMs))
		}
	case wire.EventSessionOpened:
		return t + " MCP session " + e.Session + " opened"
	case wire.EventSessionClosed:
		return t + " MCP session " + e.Session + " closed"
	case wire.EventModelReloaded:
		if e.Error != "" {
			return t + " configuration reloaded; " + e.Error // plugins that failed
		}
		return t + " configuration reloaded"
	case wire.EventModelFailed:
		return t + " configuration failed to load: " + e.Error
	}
	return t + " " + e.Type
}
