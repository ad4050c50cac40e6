//go:build !windows

// Package live_test runs the real vx and vxd binaries and checks what a
// person watching a run relies on: the daemon's /events feed (shell runs
// and runTasks runs, in order; a stalled client never slows a run), the
// guard in front of the status page and the feed (token, cookie, Origin,
// Host), and `vxd status --watch`. Workspaces are temporary copies of
// examples/demo or generated ones; nothing here mocks a part of vx.
package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"github.com/vzn/vx/protocol/wire"
)

// The binaries built once by TestMain, side by side (vx finds vxd beside
// itself and the daemon's runTasks starts the vx beside it).
var (
	vxBin  string
	vxdBin string
)

func TestMain(m *testing.M) {
	os.Exit(harness.Suite{
		TempPrefix: "vx-live-test-",
		Binaries: []harness.Binary{
			{Dest: &vxBin, Path: "vx", Pkg: "./cmd/vx"},
			{Dest: &vxdBin, Path: "vxd", Pkg: "./cmd/vxd"},
		},
		Done: stopStrays,
	}.Run(m))
}

// baseEnv is the test's environment without variables that change what vx
// or vxd does.
func baseEnv() []string {
	return harness.Env("VX_LOG", "CI", "TOKEN", "NODE_ENV", "VXD_IDLE_TIMEOUT", "VX_EVENTS_FD", "VX_CONCURRENCY")
}

// demo copies examples/demo (without build output or state) into a fresh
// temp dir and returns it.
func demo(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(harness.TempRoot(t), "demo")
	harness.CopyTree(t, filepath.Join(harness.ModuleRoot(), "examples", "demo"), dst, "node_modules", "dist", ".vx")
	t.Cleanup(func() { stopDaemon(t, dst) })
	return dst
}

// result is what one process did.
type result = harness.Result

// run runs bin in dir with baseEnv and waits for it.
func run(t *testing.T, dir string, bin string, args ...string) result {
	t.Helper()
	return harness.Run(t, dir, baseEnv(), bin, args...)
}

// vxRun runs `vx run ARGS --format json`, wants exit 0 and returns the
// summary it printed.
func vxRun(t *testing.T, dir string, args ...string) *wire.RunSummary {
	t.Helper()
	r := run(t, dir, vxBin, append(append([]string{"run"}, args...), "--format", "json")...)
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	var s wire.RunSummary
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("vx run printed no summary: %v\n%s", err, r)
	}
	return &s
}

// daemonPIDs remembers every daemon the tests started, to stop strays.
var daemonPIDs sync.Map // pid → root

// vxd is one started daemon as its user finds it.
type vxd struct {
	root  string
	port  int
	token string
}

func (d *vxd) base() string      { return "http://127.0.0.1:" + strconv.Itoa(d.port) }
func (d *vxd) eventsURL() string { return "ws://127.0.0.1:" + strconv.Itoa(d.port) + "/events" }

// startDaemon runs `vxd start` in root; the port comes from
// `vxd status --json` and the token from `vxd token`.
func startDaemon(t *testing.T, root string) *vxd {
	t.Helper()
	if r := run(t, root, vxdBin, "start"); r.Code != 0 {
		t.Fatalf("vxd start failed\n%s", r)
	}
	r := run(t, root, vxdBin, "status", "--json")
	if r.Code != 0 {
		t.Fatalf("vxd status --json after start\n%s", r)
	}
	var st wire.Status
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st.Port == 0 {
		t.Fatalf("vxd status --json: no port (%v)\n%s", err, r)
	}
	daemonPIDs.Store(st.PID, root)
	tr := run(t, root, vxdBin, "token")
	if tr.Code != 0 || strings.TrimSpace(tr.Stdout) == "" {
		t.Fatalf("vxd token\n%s", tr)
	}
	return &vxd{root: root, port: st.Port, token: strings.TrimSpace(tr.Stdout)}
}

// stopDaemon stops the workspace's daemon, if any, and makes sure the
// process it named is gone.
func stopDaemon(t *testing.T, root string) {
	var disc wire.Discovery
	b, _ := os.ReadFile(filepath.Join(root, ".vx", "daemon", "vxd.json"))
	_ = json.Unmarshal(b, &disc)
	run(t, root, vxdBin, "stop")
	if disc.PID > 0 && harness.Alive(disc.PID) && strings.Contains(harness.Cmdline(disc.PID), "vxd") {
		_ = syscall.Kill(disc.PID, syscall.SIGKILL)
	}
}

// stopStrays kills daemons the tests started that are still alive.
func stopStrays() {
	daemonPIDs.Range(func(k, v any) bool {
		if pid := k.(int); harness.Alive(pid) && strings.Contains(harness.Cmdline(pid), "vxd") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return true
	})
}

func dialFeed(t *testing.T, d *vxd, h http.Header, opts *websocket.DialOptions) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if opts == nil {
		opts = &websocket.DialOptions{}
	}
	opts.HTTPHeader = h
	c, resp, err := websocket.Dial(ctx, d.eventsURL(), opts)
	if err != nil {
		code := 0
		if resp != nil {
			code = resp.StatusCode
		}
		t.Fatalf("dialing %s: %v (HTTP %d)", d.eventsURL(), err, code)
	}
	c.SetReadLimit(16 << 20) // a run.finished carries the whole summary
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func bearerHeader(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// feedReader reads a feed connection in the background as fast as it can,
// so the test itself is never the slow client.
type feedReader struct {
	events chan wire.Event
	done   chan struct{}
	err    error // why reading stopped, once done is closed
}

func readFeed(c *websocket.Conn) *feedReader {
	fr := &feedReader{events: make(chan wire.Event, 1<<16), done: make(chan struct{})}
	go func() {
		defer close(fr.done)
		for {
			var e wire.Event
			if err := wsjson.Read(context.Background(), c, &e); err != nil {
				fr.err = err
				return
			}
			fr.events <- e
		}
	}()
	return fr
}

// untilRunFinished collects the events up to and including the first
// run.finished; the limit only keeps a broken feed from hanging the test.
func (fr *feedReader) untilRunFinished(t *testing.T, limit time.Duration) []wire.Event {
	t.Helper()
	var got []wire.Event
	timeout := time.After(limit)
	for {
		select {
		case e := <-fr.events:
			got = append(got, e)
			if e.Type == wire.EventRunFinished {
				return got
			}
		case <-fr.done:
			// Keep what was read before the connection ended.
			for len(fr.events) > 0 {
				e := <-fr.events
				got = append(got, e)
				if e.Type == wire.EventRunFinished {
					return got
				}
			}
			t.Fatalf("the feed ended before run.finished: %v\nevents so far:\n%s", fr.err, describe(got))
		case <-timeout:
			t.Fatalf("no run.finished on the feed after %s\nevents so far:\n%s", limit, describe(got))
		}
	}
}

// runEvents keeps the run.* and task.* events (the feed also carries
// model and session events).
func runEvents(evs []wire.Event) []wire.Event {
	var out []wire.Event
	for _, e := range evs {
		if strings.HasPrefix(e.Type, "run.") || strings.HasPrefix(e.Type, "task.") {
			out = append(out, e)
		}
	}
	return out
}

func describe(evs []wire.Event) string {
	var b strings.Builder
	for i, e := range evs {
		fmt.Fprintf(&b, "  %3d %-14s run=%s task=%s status=%s cache=%s\n", i, e.Type, e.RunID, e.TaskID, e.Status, e.Cache)
	}
	return b.String()
}
