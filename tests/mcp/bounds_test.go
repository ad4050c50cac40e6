//go:build !windows

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// slowStarts counts how many times the bounds workspace's slow task began.
func slowStarts(root string) int {
	b, _ := os.ReadFile(filepath.Join(root, "slow.starts"))
	return strings.Count(string(b), "started")
}

// vxRunsIn lists live `vx run` processes whose working directory is root.
func vxRunsIn(root string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !harness.Alive(pid) {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if cwd == root && strings.HasPrefix(harness.Cmdline(pid), vxBin+" run") {
			out = append(out, pid)
		}
	}
	return out
}

// lastRunStatus is the status of the newest run in the history, "" when
// there is none.
func lastRunStatus(t *testing.T, root string) string {
	t.Helper()
	var last struct {
		Found bool `json:"found"`
		Run   struct {
			Status string `json:"status"`
		} `json:"run"`
	}
	r := run(t, root, nil, vxBin, "last", "--format", "json")
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &last) != nil || !last.Found {
		return ""
	}
	return last.Run.Status
}

// TestLostDaemonDoesNotRerun kills vxd with SIGKILL while a runTasks is
// running through the shim: the shim answers that the outcome is unknown
// (naming getRunHistory and vx last) instead of running the task again on
// the daemon it restarts; the orphaned `vx run` stops with its daemon and
// records the run as interrupted; read-only calls go on working.
func TestLostDaemonDoesNotRerun(t *testing.T) {
	root := workspace(t, "bounds")
	cs := connectShim(t, root, nil)
	callOK(t, cs, "listTasks", map[string]any{})
	d := runningDaemon(t, root)
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "runTasks", Arguments: map[string]any{"tasks": []string{"slow"}}})
		if err == nil {
			b, _ := json.Marshal(res)
			err = fmt.Errorf("a result, not an error: %s", b)
		}
		errc <- err
	}()
	harness.WaitFor(t, 30*time.Second, "the slow task to start", func() bool { return slowStarts(root) == 1 })
	if err := syscall.Kill(d.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), "unknown") || !strings.Contains(err.Error(), "getRunHistory") || !strings.Contains(err.Error(), "vx last") {
		t.Fatalf("runTasks lost with its daemon: want an error saying the outcome is unknown and where to look, got %v", err)
	}
	if d2, err := readDiscovery(root); err == nil {
		daemonPIDs.Store(d2.PID, root)
	}
	harness.WaitFor(t, 30*time.Second, "the orphaned vx run to stop", func() bool { return len(vxRunsIn(root)) == 0 })
	assertNoSurvivors(t, root)
	harness.WaitFor(t, 30*time.Second, "the run to be recorded as ended", func() bool {
		s := lastRunStatus(t, root)
		return s != "" && s != "running"
	})
	if s := lastRunStatus(t, root); s != "interrupted" {
		t.Errorf("the run of the killed daemon is recorded as %q, want interrupted", s)
	}
	if n := slowStarts(root); n != 1 {
		t.Errorf("the slow task started %d times, want once: the call was replayed", n)
	}
	if runs := runsRecorded(t, root); len(runs) != 1 {
		t.Errorf("%d runs recorded, want 1: %v", len(runs), runs)
	}
	callOK(t, cs, "getRunHistory", map[string]any{})
}

// session03 opens a raw 2025-03-26 session (the revision with batches).
func session03(t *testing.T, endpoint, token string) func(body string) (*http.Response, []byte) {
	t.Helper()
	c := newRaw(endpoint, token)
	c.hc.Timeout = 120 * time.Second
	resp, body := c.post(t, strings.Replace(initBody, "2025-06-18", "2025-03-26", 1))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	return func(body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-03-26")
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
}

func batch(n int, msg string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(msg, i+1)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// rssOf reads a process's resident set from /proc, in bytes.
func rssOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestBatchBounds: a batch of 10,000 listTasks is refused whole, naming
// the limit (before, it made a 279 MB answer); a batch at the limit is
// answered; a batch of 60 runTasks never runs two at once (the task fails
// with exit 9 if another copy holds its lock), and the entries it refuses
// name the run going on.
func TestBatchBounds(t *testing.T) {
	root := workspace(t, "bounds")
	endpoint, token, st := startDaemon(t, root)
	post := session03(t, endpoint, token)
	before := rssOf(st.PID)
	resp, body := post(batch(10000, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"listTasks","arguments":{}}}`))
	var one rpcReply
	if err := json.Unmarshal(body, &one); err != nil || one.Error == nil || one.Error.Code != -32600 || !strings.Contains(one.Error.Message, "at most 100") {
		t.Fatalf("a 10,000-entry batch: %s %.400s", resp.Status, body)
	}
	t.Logf("vxd RSS %d MiB before a 10,000-entry batch of listTasks, %d MiB after; answer %d bytes", before>>20, rssOf(st.PID)>>20, len(body))
	_, body = post(batch(100, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"listTasks","arguments":{}}}`))
	var answers []rpcReply
	if err := json.Unmarshal(body, &answers); err != nil || len(answers) != 100 {
		t.Fatalf("a 100-entry batch: %d answers, %v", len(answers), err)
	}

	_, body = post(batch(60, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"runTasks","arguments":{"tasks":["slow"]}}}`))
	answers = nil
	if err := json.Unmarshal(body, &answers); err != nil || len(answers) != 60 {
		t.Fatalf("a batch of 60 runTasks: %v %.400s", err, body)
	}
	ran, refused := 0, 0
	for _, a := range answers {
		var res struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				ExitCode int `json:"exitCode"`
			} `json:"structuredContent"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if a.Error != nil || json.Unmarshal(a.Result, &res) != nil {
			t.Fatalf("entry %s: %s", a.ID, a.Result)
		}
		switch {
		case res.IsError && strings.Contains(res.Content[0].Text, "another runTasks is running") && strings.Contains(res.Content[0].Text, "slow"):
			refused++
		case !res.IsError && res.StructuredContent.ExitCode == 0:
			ran++
		default:
			t.Errorf("entry %s: %s", a.ID, a.Result)
		}
	}
	if ran == 0 || refused == 0 || slowStarts(root) != ran {
		t.Errorf("60 runTasks: %d ran, %d refused, the task started %d times", ran, refused, slowStarts(root))
	}
}

// TestDuplicateRequestID: over real HTTP, a request reusing the id of a
// runTasks in flight is refused, and cancelling that id stops the run.
func TestDuplicateRequestID(t *testing.T) {
	root := workspace(t, "bounds")
	endpoint, token, _ := startDaemon(t, root)
	c := newRaw(endpoint, token)
	c.hc.Timeout = 120 * time.Second
	c.initialize(t)
	first := make(chan []byte, 1)
	go func() {
		_, body := c.post(t, `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"runTasks","arguments":{"tasks":["slow"]}}}`)
		first <- body
	}()
	harness.WaitFor(t, 30*time.Second, "the slow task to start", func() bool { return slowStarts(root) == 1 })
	resp, body := c.post(t, `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"listTasks","arguments":{}}}`)
	r := reply(t, resp, body)
	if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "already in flight") || string(r.ID) != "42" {
		t.Fatalf("a second request with id 42: %s", body)
	}
	c.post(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}`)
	<-first
	harness.WaitFor(t, 30*time.Second, "the cancelled run to be recorded", func() bool {
		s := lastRunStatus(t, root)
		return s != "" && s != "running"
	})
	if s := lastRunStatus(t, root); s != "interrupted" {
		t.Errorf("cancelling id 42 left the run %q, want interrupted", s)
	}
}

// TestSessionBounds: a session with no request and no open stream ends
// after the documented idle time (set short here), so an abandoned
// session cannot keep vxd alive; one holding its GET stream stays; and 121
// sessions created at once never leave more than the cap (64) alive.
func TestSessionBounds(t *testing.T) {
	root := workspace(t, "bounds")
	endpoint, token, _ := startDaemon(t, root, "VXD_SESSION_IDLE=2s")
	abandoned := newRaw(endpoint, token)
	abandoned.initialize(t)
	streaming := newRaw(endpoint, token)
	streaming.initialize(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", streaming.sid)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	ping := `{"jsonrpc":"2.0","id":5,"method":"ping"}`
	// Watched through vxd status, which touches no session.
	harness.WaitFor(t, 60*time.Second, "the abandoned session to expire", func() bool {
		s, _ := vxdStatus(t, root)
		return s != nil && s.Sessions == 1
	})
	if resp, body := abandoned.post(t, ping); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the abandoned session still answers: %s %s", resp.Status, body)
	}
	if resp, body := streaming.post(t, ping); resp.StatusCode != http.StatusOK {
		t.Errorf("the session holding its GET stream expired: %s %s", resp.Status, body)
	}
	cancel()

	var wg sync.WaitGroup
	for range 121 {
		wg.Go(func() {
			c := newRaw(endpoint, token)
			req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(initBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json")
			req.Header.Set("Authorization", "Bearer "+token)
			if resp, err := c.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	if s, r := vxdStatus(t, root); s == nil || s.Sessions > 64 {
		t.Errorf("after 121 concurrent initializes: %s", r)
	}
}

// TestLongRunTasksOutlivesTimeouts: a runTasks of 40s, longer than vxd's
// 30s read timeout, still answers: straight over HTTP with a client that
// accepts JSON only, and through the shim (whose stall timeout the
// daemon's keep-alives hold off).
func TestLongRunTasksOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	t.Run("json-only", func(t *testing.T) {
		t.Parallel()
		root := workspace(t, "bounds")
		endpoint, token, _ := startDaemon(t, root)
		post := session03(t, endpoint, token)
		resp, body := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"runTasks","arguments":{"tasks":["long"]}}}`)
		if r := reply(t, resp, body); r.Error != nil || !strings.Contains(string(r.Result), `"exitCode":0`) {
			t.Fatalf("a 40s runTasks over HTTP: %s %.500s", resp.Status, body)
		}
	})
	// The SDK over HTTP accepts SSE: its answer stream carries vxd's
	// keep-alive comments before the result.
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "bounds")
			cs := tr.connect(t, root, nil)
			a := callOK(t, cs, "runTasks", map[string]any{"tasks": []string{"long"}})
			var out runTasksOut
			a.structured(t, &out)
			if out.ExitCode != 0 {
				t.Fatalf("a 40s runTasks (%s): %s", tr.name, a.text)
			}
		})
	}
}

// TestStoppedDaemon: a daemon stopped with SIGSTOP does not leave the
// shim's client waiting forever: its ping is answered with an error
// within the shim's stall time (60s).
func TestStoppedDaemon(t *testing.T) {
	t.Parallel()
	root := workspace(t, "bounds")
	cs := connectShim(t, root, nil)
	callOK(t, cs, "listTasks", map[string]any{})
	d := runningDaemon(t, root)
	if err := syscall.Kill(d.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(d.PID, syscall.SIGCONT) })
	harness.WaitFor(t, 30*time.Second, "the daemon to be stopped", func() bool { return procState(d.PID) == "T" })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err := cs.Ping(ctx, nil)
	if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "sent nothing") {
		d2, _ := readDiscovery(root)
		log, _ := os.ReadFile(filepath.Join(root, ".vx", "daemon", "vxd.log"))
		t.Fatalf("ping to a stopped daemon: want an error from the shim, got %v (context: %v); daemon %d state %q, discovery now %+v\nvxd.log:\n%s",
			err, ctx.Err(), d.PID, procState(d.PID), d2, log)
	}
}

// procState is the state letter of a process (R, S, T…), "" when gone.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return string(b[i+2])
	}
	return ""
}
