//go:build !windows

package live_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/protocol/wire"
)

// The demo's build chain: each task finishes before the next starts.
var demoChain = [][2]string{
	{"@demo/utils#build", "@demo/ui#build"},
	{"@demo/ui#build", "web#build"},
}

// checkRunOrder asserts what a watcher of one run relies on: run.started
// first, each task started before it finished, each dependency finished
// before its dependent started, run.finished last with a summary that
// agrees with the task.finished events, and one runId throughout.
func checkRunOrder(t *testing.T, all []wire.Event, runID string, wantTasks []string, before [][2]string) {
	t.Helper()
	evs := runEvents(all)
	if len(evs) < 2 {
		t.Fatalf("want a run's events, got:\n%s", describe(all))
	}
	if evs[0].Type != wire.EventRunStarted {
		t.Errorf("first event is %s, want run.started\n%s", evs[0].Type, describe(evs))
	}
	last := evs[len(evs)-1]
	if last.Type != wire.EventRunFinished {
		t.Fatalf("last event is %s, want run.finished\n%s", last.Type, describe(evs))
	}
	for i, e := range evs {
		if e.RunID != runID {
			t.Errorf("event %d (%s %s) has runId %q, want %q", i, e.Type, e.TaskID, e.RunID, runID)
		}
	}
	if evs[0].Tasks != len(wantTasks) {
		t.Errorf("run.started says %d tasks, want %d", evs[0].Tasks, len(wantTasks))
	}
	started, finished := map[string]int{}, map[string]int{}
	for i, e := range evs {
		switch e.Type {
		case wire.EventTaskStarted:
			if _, dup := started[e.TaskID]; dup {
				t.Errorf("%s started twice", e.TaskID)
			}
			started[e.TaskID] = i
		case wire.EventTaskFinished:
			if _, dup := finished[e.TaskID]; dup {
				t.Errorf("%s finished twice", e.TaskID)
			}
			finished[e.TaskID] = i
		case wire.EventRunStarted:
			if i != 0 {
				t.Errorf("a second run.started at %d", i)
			}
		case wire.EventRunFinished:
			if i != len(evs)-1 {
				t.Errorf("run.finished at %d before the end", i)
			}
		}
	}
	for _, id := range wantTasks {
		s, okS := started[id]
		f, okF := finished[id]
		switch {
		case !okS || !okF:
			t.Errorf("%s: task.started seen %v, task.finished seen %v; want both", id, okS, okF)
		case s > f:
			t.Errorf("%s finished (event %d) before it started (event %d)", id, f, s)
		}
	}
	if len(finished) != len(wantTasks) {
		t.Errorf("%d tasks finished on the feed, want %d\n%s", len(finished), len(wantTasks), describe(evs))
	}
	for _, p := range before {
		dep, dependent := p[0], p[1]
		if f, s := finished[dep], started[dependent]; f > s {
			t.Errorf("%s started (event %d) before its dependency %s finished (event %d)", dependent, s, dep, f)
		}
	}
	sum := last.Summary
	if sum == nil {
		t.Fatalf("run.finished carries no summary")
	}
	if sum.RunID != runID || sum.Status != wire.StatusPassed {
		t.Errorf("summary: runId %q status %q, want %q passed", sum.RunID, sum.Status, runID)
	}
	byID := map[string]wire.Event{}
	for _, e := range evs {
		if e.Type == wire.EventTaskFinished {
			byID[e.TaskID] = e
		}
	}
	if len(sum.Tasks) != len(byID) {
		t.Errorf("summary lists %d tasks, the feed finished %d", len(sum.Tasks), len(byID))
	}
	for _, row := range sum.Tasks {
		e, ok := byID[row.TaskID]
		if !ok {
			t.Errorf("summary task %s has no task.finished event", row.TaskID)
			continue
		}
		if e.Status != row.Status || e.Cache != row.Cache {
			t.Errorf("%s: feed says %s/%s, summary says %s/%s", row.TaskID, e.Status, e.Cache, row.Status, row.Cache)
		}
	}
}

// demoTasks are the demo's project#task ids for the given task names.
func demoTasks(names ...string) []string {
	var out []string
	for _, p := range []string{"@demo/utils", "@demo/ui", "web", "api"} {
		for _, n := range names {
			out = append(out, p+"#"+n)
		}
	}
	return out
}

func TestFeedShellRun(t *testing.T) {
	root := demo(t)
	d := startDaemon(t, root)
	fr := readFeed(dialFeed(t, d, bearerHeader(d.token), nil))

	sum := vxRun(t, root, "build", "test", "--force")
	evs := fr.untilRunFinished(t, time.Minute)

	before := append([][2]string{}, demoChain...)
	for _, p := range []string{"@demo/utils", "@demo/ui", "web", "api"} {
		before = append(before, [2]string{p + "#build", p + "#test"})
	}
	checkRunOrder(t, evs, sum.RunID, demoTasks("build", "test"), before)
	for _, e := range runEvents(evs) {
		if e.Type == wire.EventTaskFinished && e.Cache != wire.CacheMiss {
			t.Errorf("%s: cache %q under --force, want miss", e.TaskID, e.Cache)
		}
	}
}

func TestFeedRunTasks(t *testing.T) {
	root := demo(t)
	d := startDaemon(t, root)
	fr := readFeed(dialFeed(t, d, bearerHeader(d.token), nil))

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "vx-live-test", Version: "1"}, nil)
	// The session era; the stateless era has its own tests.
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.base() + "/mcp", HTTPClient: harness.BearerClient(d.token), MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting to %s/mcp: %v", d.base(), err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"tasks": []string{"build"}, "force": true}})
	if err != nil {
		t.Fatalf("runTasks: %v", err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct {
		ExitCode int              `json:"exitCode"`
		Summary  *wire.RunSummary `json:"summary"`
	}
	if res.IsError || json.Unmarshal(b, &out) != nil || out.Summary == nil || out.ExitCode != 0 {
		t.Fatalf("runTasks did not pass: isError %v\n%s", res.IsError, b)
	}
	evs := fr.untilRunFinished(t, time.Minute)
	checkRunOrder(t, evs, out.Summary.RunID, demoTasks("build"), demoChain)

	t.Run("session events", func(t *testing.T) {
		// The issue lists "sessions opened/closed" among the feed's events.
		for _, e := range evs {
			if e.Type == wire.EventSessionOpened {
				return
			}
		}
		t.Error("no session.opened event on /events when an MCP session opened")
	})
}

// manyProjects writes a workspace of n projects whose build is one echo:
// the second half depends on every project of the first. Each of their
// task.started events lists its dependencies and the names are long, so
// the feed carries more (n=300: about 4.7 MB) than the kernel buffers for
// a client that does not read (a socket's send buffer is at most 4 MB).
func manyProjects(t *testing.T, n int) string {
	t.Helper()
	root := filepath.Join(harness.TempRoot(t), "many")
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["packages/*"], "tasks": {"build": {"dependsOn": ["^build"]}}}`)
	harness.WriteFile(t, filepath.Join(root, "package.json"), `{"name": "many", "private": true}`)
	// A task's lock file is named after its id: stay under 255 bytes.
	pad := strings.Repeat("x", 200)
	name := func(i int) string { return fmt.Sprintf("p%03d-%s", i, pad) }
	first := map[string]string{}
	for i := range n / 2 {
		first[name(i)] = "*"
	}
	for i := range n {
		pkg := map[string]any{"name": name(i), "version": "1.0.0", "scripts": map[string]string{"build": fmt.Sprintf("echo %d", i)}}
		if i >= n/2 {
			pkg["dependencies"] = first
		}
		b, _ := json.Marshal(pkg)
		harness.WriteFile(t, filepath.Join(root, "packages", fmt.Sprintf("p%03d", i), "package.json"), string(b))
	}
	t.Cleanup(func() { stopDaemon(t, root) })
	return root
}

// smallReceiveBuffer makes a client's socket buffer little, so a client
// that never reads stalls the server's writes soon.
func smallReceiveBuffer() *http.Client {
	dialer := &net.Dialer{Control: func(network, address string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		})
		return errors.Join(err, serr)
	}}
	return &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
}

func TestFeedStalledClient(t *testing.T) {
	const projects = 300
	root := manyProjects(t, projects)
	d := startDaemon(t, root)

	// Never read: once its socket is full the server's writes to it block
	// and its share of the feed (256 events) overflows.
	stalled := dialFeed(t, d, bearerHeader(d.token), &websocket.DialOptions{HTTPClient: smallReceiveBuffer()})
	reader := readFeed(dialFeed(t, d, bearerHeader(d.token), nil))

	// Two runs: a forced one that fills the stalled client's socket, then a
	// cached one that publishes its 602 events in a burst. vxRun fails the
	// test unless each exits 0.
	var runs []*wire.RunSummary
	for _, args := range [][]string{{"build", "--force"}, {"build"}} {
		sum := vxRun(t, root, args...)
		if sum.Totals.Tasks != projects || sum.Status != wire.StatusPassed {
			t.Fatalf("vx run %v: %d tasks %s, want %d passed", args, sum.Totals.Tasks, sum.Status, projects)
		}
		runs = append(runs, sum)
	}
	if runs[1].Totals.Cached != projects {
		t.Errorf("the second run had %d cache hits, want %d", runs[1].Totals.Cached, projects)
	}

	t.Run("a reading client gets every run.finished", func(t *testing.T) {
		for _, sum := range runs {
			evs := reader.untilRunFinished(t, time.Minute)
			if last := evs[len(evs)-1]; last.RunID != sum.RunID {
				t.Errorf("run.finished for %q, want %q", last.RunID, sum.RunID)
			}
			if n := len(runEvents(evs)); n != 2*projects+2 {
				t.Errorf("run %s: %d events, want %d", sum.RunID, n, 2*projects+2)
			}
		}
	})

	t.Run("the stalled client is closed by the server", func(t *testing.T) {
		// What the sockets buffered still reads; then the read must fail
		// because the server closed the connection, not because we gave up.
		ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
		defer cancel()
		n := 0
		var err error
		for {
			if _, _, err = stalled.Read(ctx); err != nil {
				break
			}
			n++
		}
		if ctx.Err() != nil {
			t.Fatalf("the stalled client was never closed: %d messages read, then %v", n, err)
		}
		if st := websocket.CloseStatus(err); st != -1 && st != websocket.StatusPolicyViolation {
			t.Errorf("closed with status %v, want %v (policy violation: too slow)", st, websocket.StatusPolicyViolation)
		}
		if all := 2 * (2*projects + 2); n >= all {
			t.Errorf("the stalled client got all %d events; it was not dropped", n)
		}
		t.Logf("the stalled client read %d buffered messages, then: %v", n, err)
	})

	t.Run("the daemon still serves a new client", func(t *testing.T) {
		dialFeed(t, d, bearerHeader(d.token), nil).CloseNow()
		if r := run(t, root, vxdBin, "status", "--json"); r.Code != 0 {
			t.Errorf("vxd status after the stalled client\n%s", r)
		}
	})
}
