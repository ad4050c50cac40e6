package mcp_test

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/listen"
)

// TestStreamsLeaveRoomForCalls: a client with the token opens as many
// subscriptions/listen streams as vxd serves connections (128), and as
// many more bare connections that send nothing. Streams beyond vxd's own
// cap are refused at once (503, naming the cap) rather than taking every
// connection, and meanwhile `vxd status` answers, `vx mcp` serves a tool
// call, and a new session works: the reserve left beside the streams
// serves them, and idle connections give way to a client that waits.
func TestStreamsLeaveRoomForCalls(t *testing.T) {
	root := workspace(t, "hist")
	endpoint, token, _ := startDaemon(t, root)
	const attempts = 128
	var (
		mu      sync.Mutex
		open    []*listen.Stream
		refused []string
		failed  []error
		wg      sync.WaitGroup
	)
	for range attempts {
		wg.Go(func() {
			s, status, body, err := listen.Open(endpoint, token, 20*time.Second)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failed = append(failed, err)
			case s != nil:
				open = append(open, s)
			default:
				refused = append(refused, http.StatusText(status)+": "+body)
			}
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, s := range open {
			s.Close()
		}
	})
	t.Logf("%d streams open, %d refused, %d unanswered", len(open), len(refused), len(failed))
	if len(failed) > 0 {
		t.Fatalf("%d listen requests got no answer (the first: %v): vxd stopped answering", len(failed), failed[0])
	}

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
	c := newRaw(endpoint, token)
	c.initialize(t)
	if r := c.callRaw(t, `{"name":"listTasks","arguments":{}}`); r.Error != nil {
		t.Fatalf("a tool call with the streams open: %+v", r.Error)
	}
	if len(refused) == 0 || !strings.Contains(refused[0], "Service Unavailable") || !strings.Contains(refused[0], "streams") {
		t.Fatalf("all %d streams were accepted; want those over vxd's stream cap refused with 503 naming it (first refusal: %v)", attempts, refused)
	}

	// Closing the streams gives their slots back.
	for _, s := range open {
		s.Close()
	}
	open = nil
	s, status, body, err := listen.Open(endpoint, token, 20*time.Second)
	if err != nil || s == nil {
		t.Fatalf("a listen stream once the others closed: %d %s %v", status, body, err)
	}
	s.Close()
}
