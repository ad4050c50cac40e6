//go:build !windows

package mcp_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/listen"
)

// TestStreamsLeaveRoomForCalls: a client with the token opens as many
// subscriptions/listen streams as vxd serves connections (128), and more
// bare connections that send nothing. Streams beyond vxd's own cap are
// refused at once (503, naming the cap) rather than taking every
// connection, and meanwhile `vxd status` answers, `vx mcp` serves a tool
// call, and new sessions work (the SDK's, whose GET stream is refused,
// too): the reserve left beside the streams serves them, and idle
// connections give way to a client that waits.
func TestStreamsLeaveRoomForCalls(t *testing.T) {
	root := workspace(t, "hist")
	endpoint, token, _ := startDaemon(t, root)
	const attempts = 128
	open, refused := listen.OpenMany(t, endpoint, []string{token}, attempts, 20*time.Second)

	// Bare connections that never send a request.
	u, _ := url.Parse(endpoint)
	for range 140 {
		c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		if err != nil {
			t.Fatalf("dialling vxd: %v", err)
		}
		t.Cleanup(func() { c.Close() })
	}

	if st, r := vxdStatus(t, root); st == nil {
		t.Fatalf("vxd status with the streams open:\n%s", r)
	}
	cs := connectShim(t, root, nil)
	callOK(t, cs, "listTasks", map[string]any{})
	// An SDK session straight over HTTP, whose GET stream is refused.
	callOK(t, connectHTTP(t, endpoint, token, nil), "listTasks", map[string]any{})
	c := newRaw(endpoint, token)
	c.initialize(t)
	if r := c.callRaw(t, `{"name":"listTasks","arguments":{}}`); r.Error != nil {
		t.Fatalf("a tool call with the streams open: %+v", r.Error)
	}
	// The /events feed is a stream too: refused while the cap is reached.
	wsURL := "ws://" + strings.TrimPrefix(strings.TrimSuffix(endpoint, "/mcp"), "http://") + "/events"
	dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Second)
	ws, resp, err := websocket.Dial(dctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	dcancel()
	if err == nil {
		ws.CloseNow()
		t.Errorf("the /events feed was accepted with %d streams open", len(open))
	} else if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("the /events feed with the stream cap reached: %v, want 503", err)
	}
	if len(refused) == 0 || !strings.Contains(refused[0], "Service Unavailable") || !strings.Contains(refused[0], "streams") {
		t.Fatalf("all %d streams were accepted; want those over vxd's stream cap refused with 503 naming it (first refusal: %v)", attempts, refused)
	}

	// Closing the streams gives their slots back (once vxd sees them
	// closed).
	for _, s := range open {
		s.Close()
	}
	open = nil
	harness.WaitFor(t, 30*time.Second, "a listen stream to be accepted once the others closed", func() bool {
		s, _, _, err := listen.Open(endpoint, token, 20*time.Second)
		if s != nil {
			s.Close()
		}
		return err == nil && s != nil
	})
}
