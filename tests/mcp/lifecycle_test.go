//go:build !windows

package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func hasTask(t *testing.T, cs *mcp.ClientSession, id string) bool {
	t.Helper()
	var out showOut
	callOK(t, cs, "listTasks", map[string]any{}).structured(t, &out)
	for _, p := range out.Projects {
		for _, tk := range p.Tasks {
			if tk.TaskID == id {
				return true
			}
		}
	}
	return false
}

// TestKilledDaemon kills the daemon with SIGKILL mid-session: the next
// call through the shim succeeds, answered by a new daemon.
func TestKilledDaemon(t *testing.T) {
	root := workspace(t, "policy")
	cs := connectShim(t, root, nil)
	callOK(t, cs, "listTasks", map[string]any{})
	d, err := readDiscovery(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(d.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, 10*time.Second, "the killed daemon to die", func() bool { return !harness.Alive(d.PID) })
	if !hasTask(t, cs, "one#test") {
		t.Errorf("after the restart listTasks lacks one#test")
	}
	d2, err := readDiscovery(root)
	if err != nil || d2.PID == d.PID {
		t.Fatalf("no new daemon after the kill: %+v %v", d2, err)
	}
	daemonPIDs.Store(d2.PID, root)
	// And again, through the same SDK session.
	if err := syscall.Kill(d2.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	harness.WaitFor(t, 10*time.Second, "the second daemon to die", func() bool { return !harness.Alive(d2.PID) })
	callOK(t, cs, "getRunHistory", map[string]any{})
	if d3, err := readDiscovery(root); err == nil {
		daemonPIDs.Store(d3.PID, root)
	}
}

// TestTwoShimsOneDaemon starts two shims at the same instant: one daemon
// serves both sessions.
func TestTwoShimsOneDaemon(t *testing.T) {
	root := workspace(t, "policy")
	var wg sync.WaitGroup
	sessions := make([]*mcp.ClientSession, 2)
	errs := make([]error, 2)
	start := make(chan struct{})
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := mcp.NewClient(&mcp.Implementation{Name: "twin", Version: "1"}, nil)
			// The session era; the stateless era has its own tests.
			sessions[i], errs[i] = c.Connect(ctx, &mcp.CommandTransport{Command: shimCmd(root), TerminateDuration: 5 * time.Second},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shim %d: %v", i, err)
		}
		t.Cleanup(func() { sessions[i].Close() })
	}
	for _, cs := range sessions {
		callOK(t, cs, "listTasks", map[string]any{"project": "one"})
	}
	d := runningDaemon(t, root)
	harness.WaitFor(t, 10*time.Second, "one daemon process for the workspace", func() bool {
		return slices.Equal(daemonsFor(root), []int{d.PID})
	})
	st, r := vxdStatus(t, root)
	if st == nil {
		t.Fatalf("vxd status\n%s", r)
	}
	if st.PID != d.PID || st.Sessions < 2 {
		t.Errorf("vxd status: pid %d sessions %d; want pid %d and ≥ 2 sessions", st.PID, st.Sessions, d.PID)
	}
}

// TestConfigEdits edits vx.workspace.json under a live session: a new task
// shows without a restart, toggling mcp.run announces tools/list_changed,
// and a broken edit keeps the last good model serving and is reported.
func TestConfigEdits(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "policy")
			changed := make(chan struct{}, 16)
			opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				changed <- struct{}{}
			}}
			cs := tr.connect(t, root, opts)
			if _, ok := toolNames(t, cs)["runTasks"]; !ok {
				t.Fatalf("runTasks is not listed by default")
			}
			cfg := filepath.Join(root, "vx.workspace.json")
			harness.WriteFile(t, cfg, `{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["prep"]},"lint":{},"nap":{"cache":false},"extra":{"command":"echo extra"}}}`)
			harness.WaitFor(t, 5*time.Second, "listTasks to show one#extra", func() bool { return hasTask(t, cs, "one#extra") })

			// A new project directory joins without a restart.
			harness.WriteFile(t, filepath.Join(root, "pkgs/three/package.json"), `{"name":"three","scripts":{"lint":"echo three"}}`)
			harness.WaitFor(t, 5*time.Second, "listTasks to show the new project's three#lint", func() bool { return hasTask(t, cs, "three#lint") })

			// mcp.run false: runTasks disappears and sessions are told.
			for len(changed) > 0 {
				<-changed
			}
			harness.WriteFile(t, cfg, `{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["prep"]},"lint":{},"nap":{"cache":false},"extra":{"command":"echo extra"}},"mcp":{"run":false}}`)
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Errorf("no notifications/tools/list_changed within 10s of setting mcp.run false")
			}
			harness.WaitFor(t, 5*time.Second, "runTasks to leave tools/list", func() bool {
				_, ok := toolNames(t, cs)["runTasks"]
				return !ok
			})

			// A broken edit: the last good model keeps serving, the error is reported.
			harness.WriteFile(t, cfg, `{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["nosuchtask"]}`)
			var info struct {
				ConfigErrors []string `json:"configErrors"`
			}
			harness.WaitFor(t, 5*time.Second, "getWorkspaceInfo to report the config error", func() bool {
				callOK(t, cs, "getWorkspaceInfo", map[string]any{}).structured(t, &info)
				return len(info.ConfigErrors) > 0
			})
			if !strings.Contains(strings.Join(info.ConfigErrors, "\n"), "vx.workspace.json") {
				t.Errorf("the config error does not name the file: %q", info.ConfigErrors)
			}
			if !hasTask(t, cs, "one#extra") {
				t.Errorf("after a broken edit the last good model no longer serves one#extra")
			}
			if st, r := vxdStatus(t, root); st == nil || st.ConfigError == "" {
				t.Errorf("vxd status does not report the config error\n%s", r)
			}
			// Fixed again: the error clears.
			harness.WriteFile(t, cfg, `{"projects":["pkgs/*"],"tasks":{"prep":{},"test":{"dependsOn":["prep"]},"lint":{},"fixed":{"command":"echo fixed"}}}`)
			harness.WaitFor(t, 5*time.Second, "the fixed config to load", func() bool { return hasTask(t, cs, "two#fixed") })
			callOK(t, cs, "getWorkspaceInfo", map[string]any{}).structured(t, &info)
			if len(info.ConfigErrors) != 0 {
				t.Errorf("the fixed config still reports %q", info.ConfigErrors)
			}
			if _, ok := toolNames(t, cs)["runTasks"]; !ok {
				t.Errorf("mcp.run absent again, but runTasks is not listed")
			}
		})
	}
}

// TestStatusNoDaemon: `vxd status` with none running exits 1 with one
// sentence (and, under --json, a JSON object saying so on stdout) and
// starts nothing.
func TestStatusNoDaemon(t *testing.T) {
	root := workspace(t, "policy")
	for _, args := range [][]string{{"status"}, {"status", "--json"}} {
		r := run(t, root, nil, vxdBin, args...)
		if r.Code != 1 {
			t.Errorf("vxd %v with no daemon: exit %d, want 1\n%s", args, r.Code, r)
		}
		if len(args) == 1 && strings.TrimSpace(r.Stdout) != "" {
			t.Errorf("vxd %v with no daemon printed on stdout: %q", args, r.Stdout)
		}
		var st struct {
			Running   *bool  `json:"running"`
			Workspace string `json:"workspace"`
		}
		if len(args) == 2 && (json.Unmarshal([]byte(r.Stdout), &st) != nil || st.Running == nil || *st.Running || st.Workspace != root) {
			t.Errorf("vxd %v with no daemon: want {running: false, workspace} on stdout, got %q", args, r.Stdout)
		}
		msg := strings.TrimSpace(r.Stderr)
		if msg == "" || strings.Count(msg, "\n") > 0 || strings.Count(msg, ". ") > 0 {
			t.Errorf("vxd %v with no daemon: want one sentence on stderr, got %q", args, msg)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if pids := daemonsFor(root); len(pids) != 0 {
		t.Errorf("vxd status started a daemon: %v", pids)
	}
	if _, err := os.Stat(filepath.Join(root, ".vx", "daemon", "vxd.json")); err == nil {
		t.Errorf("vxd status left a discovery file")
	}
}

// TestOtherVersionReplaced: a daemon of another version (the same code
// built with another version string) is replaced by the shim's.
func TestOtherVersionReplaced(t *testing.T) {
	root := workspace(t, "policy")
	if r := run(t, root, nil, oldBin, "start"); r.Code != 0 {
		t.Fatalf("starting the old vxd\n%s", r)
	}
	old, err := readDiscovery(root)
	if err != nil || old.Version != oldVersion {
		t.Fatalf("the old daemon's discovery file: %+v %v", old, err)
	}
	daemonPIDs.Store(old.PID, root)
	cs := connectShim(t, root, nil)
	if v := cs.InitializeResult().ServerInfo.Version; v == oldVersion {
		t.Errorf("the shim talks to the old daemon (serverInfo.version %s)", v)
	}
	callOK(t, cs, "listTasks", map[string]any{})
	d := runningDaemon(t, root)
	if d.Version == oldVersion || d.PID == old.PID {
		t.Errorf("the daemon was not replaced: %+v", d)
	}
	harness.WaitFor(t, 10*time.Second, "the old daemon to exit", func() bool { return !harness.Alive(old.PID) })
	if st, r := vxdStatus(t, root); st == nil || st.Version == oldVersion || st.PID != d.PID {
		t.Errorf("vxd status after the replacement\n%s", r)
	}
}

// TestIdleShutdown: `vxd serve --idle-timeout 2s` stops by itself when no
// session and no request comes, and removes its discovery file.
func TestIdleShutdown(t *testing.T) {
	root := workspace(t, "policy")
	cmd := exec.Command(vxdBin, "serve", "--idle-timeout", "2s")
	cmd.Dir = root
	cmd.Env = baseEnv()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	daemonPIDs.Store(cmd.Process.Pid, root)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	harness.WaitFor(t, 15*time.Second, "the daemon's discovery file", func() bool {
		_, err := readDiscovery(root)
		return err == nil
	})
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("vxd serve exited with %v after going idle, want 0", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("vxd serve --idle-timeout 2s still runs after 30s")
	}
	if _, err := readDiscovery(root); err == nil {
		t.Errorf("the idle daemon left its discovery file")
	}
}

// TestGuard sends raw HTTP: a foreign Host or Origin is 403, a missing or
// wrong token 401, and a browser page on localhost completes a session.
func TestGuard(t *testing.T) {
	root := workspace(t, "policy")
	endpoint, token, st := startDaemon(t, root)
	hc := &http.Client{Timeout: 10 * time.Second}
	do := func(method string, mod func(*http.Request)) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, endpoint, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		mod(req)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	port := strings.TrimPrefix(strings.TrimSuffix(endpoint, "/mcp"), "http://127.0.0.1:")
	for _, c := range []struct {
		name string
		mod  func(*http.Request)
		want int
	}{
		{"wrong host", func(r *http.Request) { r.Host = "vx.attacker.example:" + port }, 403},
		{"right name, wrong port", func(r *http.Request) { r.Host = "127.0.0.1:1" }, 403},
		{"foreign origin", func(r *http.Request) { r.Header.Set("Origin", "https://attacker.example") }, 403},
		{"null origin", func(r *http.Request) { r.Header.Set("Origin", "null") }, 403},
		{"missing token", func(r *http.Request) { r.Header.Del("Authorization") }, 401},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("0", len(token))) }, 401},
		{"localhost host", func(r *http.Request) { r.Host = "localhost:" + port }, 200},
	} {
		if resp := do(http.MethodPost, c.mod); resp.StatusCode != c.want {
			t.Errorf("%s: %s, want %d", c.name, resp.Status, c.want)
		}
	}

	// A browser page on localhost: preflight without the token, then POSTs.
	const origin = "http://localhost:5173"
	pre := do(http.MethodOptions, func(r *http.Request) {
		r.Header.Del("Authorization")
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "POST")
		r.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-session-id, mcp-protocol-version")
	})
	if pre.StatusCode/100 != 2 || pre.Header.Get("Access-Control-Allow-Origin") != origin {
		t.Fatalf("preflight from %s: %s, Access-Control-Allow-Origin %q", origin, pre.Status, pre.Header.Get("Access-Control-Allow-Origin"))
	}
	allowed := strings.ToLower(pre.Header.Get("Access-Control-Allow-Headers"))
	for _, h := range []string{"authorization", "content-type", "mcp-session-id", "mcp-protocol-version"} {
		if !strings.Contains(allowed, h) {
			t.Errorf("preflight does not allow header %s: %q", h, allowed)
		}
	}
	if foreign := do(http.MethodOptions, func(r *http.Request) {
		r.Header.Del("Authorization")
		r.Header.Set("Origin", "https://attacker.example")
		r.Header.Set("Access-Control-Request-Method", "POST")
	}); foreign.StatusCode != 403 {
		t.Errorf("a foreign origin's preflight: %s, want 403", foreign.Status)
	}
	c := newRaw(endpoint, token)
	c.origin = origin
	resp, body := c.post(t, initBody)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != origin ||
		!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Expose-Headers")), "mcp-session-id") {
		t.Fatalf("browser initialize: %s, headers %v\n%s", resp.Status, resp.Header, body)
	}
	c.sid = resp.Header.Get("Mcp-Session-Id")
	if resp, body := c.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("browser notifications/initialized: %s\n%s", resp.Status, body)
	}
	r := c.callRaw(t, `{"name":"listTasks","arguments":{"project":"two"}}`)
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Projects []struct {
				Name string `json:"name"`
			} `json:"projects"`
		} `json:"structuredContent"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.IsError || len(res.StructuredContent.Projects) != 1 {
		t.Errorf("browser tools/call listTasks: %+v %s", r.Error, r.Result)
	}

	// The state directory is private.
	dir := filepath.Join(root, ".vx", "daemon")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf(".vx/daemon mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "vxd.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("vxd.json mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	_ = st
}

// TestReadingWritesNothing: on a workspace with no history yet, the read
// tools answer from an empty history and create no history or cache.
func TestReadingWritesNothing(t *testing.T) {
	root := workspace(t, "policy")
	endpoint, token, _ := startDaemon(t, root)
	before := snapshotTree(t, root)
	cs := connectHTTP(t, endpoint, token, nil)
	var hist historyOut
	callOK(t, cs, "getRunHistory", map[string]any{}).structured(t, &hist)
	if len(hist.Recent) != 0 || len(hist.Tasks) != 0 {
		t.Errorf("getRunHistory on a fresh workspace: %+v", hist)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"listTasks", nil}, {"getConfig", map[string]any{"target": "one#test"}}, {"getWorkspaceInfo", nil}, {"getCacheStats", nil},
		{"explainCacheKey", map[string]any{"taskId": "one#test"}}, {"getFailures", nil}, {"compareRuns", nil}, {"runTrends", nil},
		{"getLastRun", nil}, {"checkLock", nil}, {"pruneCache", nil}, {"planTasks", map[string]any{"tasks": []string{"test"}}},
	} {
		if c.args == nil {
			c.args = map[string]any{}
		}
		callOK(t, cs, c.tool, c.args)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"whyDidThisRerun", map[string]any{"taskId": "one#test"}}, {"getTaskLog", map[string]any{"taskId": "one#test"}},
	} {
		call(t, cs, c.tool, c.args) // an answer or a refusal; either way nothing is written
	}
	after := snapshotTree(t, root)
	var created []string
	for p := range after {
		if !before[p] && !strings.HasPrefix(p, ".vx/daemon/") {
			created = append(created, p)
		}
	}
	slices.Sort(created)
	if len(created) > 0 {
		t.Errorf("reading created %v", created)
	}
}

// TestHTTPStatuses sends raw HTTP for the endpoint's status codes: 400
// without a session, 404 for an unknown or ended one, 415, 413, 405 with
// Allow, 400 for an unsupported MCP-Protocol-Version, 202 for a body of
// only notifications, and JSON-RPC envelope errors.
func TestHTTPStatuses(t *testing.T) {
	root := workspace(t, "policy")
	endpoint, token, _ := startDaemon(t, root)
	c := newRaw(endpoint, token)
	c.initialize(t)
	send := func(method, body string, hdr map[string]string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, endpoint, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", c.sid)
		for k, v := range hdr {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b := new(strings.Builder)
		_, _ = io.Copy(b, resp.Body)
		return resp, b.String()
	}
	ping := `{"jsonrpc":"2.0","id":3,"method":"ping"}`
	for _, tc := range []struct {
		name, method, body string
		hdr                map[string]string
		want               int
		rpc                int // a JSON-RPC error code the body must carry, 0 for none
	}{
		{"no session", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": ""}, 400, 0},
		{"unknown session", "POST", ping, map[string]string{"Mcp-Session-Id": "no-such-session"}, 404, 0},
		{"wrong content type", "POST", ping, map[string]string{"Content-Type": "text/plain"}, 415, 0},
		{"body too large", "POST", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", 32<<20) + `"}}`, nil, 413, 0},
		{"unsupported protocol version", "POST", ping, map[string]string{"MCP-Protocol-Version": "1999-01-01"}, 400, 0},
		{"only a notification", "POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, nil, 202, 0},
		{"PUT", "PUT", ping, nil, 405, 0},
		{"outside the envelope", "POST", `{"id":3,"method":"ping"}`, nil, 200, -32600},
		{"not JSON", "POST", `{"jsonrpc":`, nil, 200, -32700},
		{"unknown method", "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/frobnicate"}`, nil, 200, -32601},
		{"server/discover falls back", "POST", `{"jsonrpc":"2.0","id":3,"method":"server/discover"}`, nil, 200, -32601},
	} {
		resp, body := send(tc.method, tc.body, tc.hdr)
		if resp.StatusCode != tc.want && !(tc.rpc != 0 && resp.StatusCode/100 == 4) {
			t.Errorf("%s: %s, want %d\n%.300s", tc.name, resp.Status, tc.want, body)
			continue
		}
		if tc.method == "PUT" && resp.Header.Get("Allow") == "" {
			t.Errorf("405 without an Allow header")
		}
		if tc.rpc != 0 {
			var r rpcReply
			if json.Unmarshal([]byte(body), &r) != nil || r.Error == nil || r.Error.Code != tc.rpc {
				t.Errorf("%s: want JSON-RPC error %d, got %s %.300s", tc.name, tc.rpc, resp.Status, body)
			}
		}
	}
	// DELETE ends the session; it is then unknown.
	if resp, _ := send("DELETE", "", nil); resp.StatusCode/100 != 2 {
		t.Errorf("DELETE: %s", resp.Status)
	}
	if resp, _ := send("POST", ping, nil); resp.StatusCode != 404 {
		t.Errorf("a request on an ended session: %s, want 404", resp.Status)
	}
}

// TestShimEndsSession: when the client closes the shim's stdin, the shim
// exits and the daemon's session count drops.
func TestShimEndsSession(t *testing.T) {
	root := workspace(t, "policy")
	a := connectShim(t, root, nil)
	b := connectShim(t, root, nil)
	callOK(t, a, "listTasks", map[string]any{})
	callOK(t, b, "listTasks", map[string]any{})
	if d, err := readDiscovery(root); err == nil {
		daemonPIDs.Store(d.PID, root)
	}
	if st, r := vxdStatus(t, root); st == nil || st.Sessions < 2 {
		t.Fatalf("two shims open, status %s", r)
	}
	if err := a.Close(); err != nil {
		t.Errorf("closing the first shim: %v", err)
	}
	harness.WaitFor(t, 10*time.Second, "the daemon to count one session", func() bool {
		st, _ := vxdStatus(t, root)
		return st != nil && st.Sessions == 1
	})
	callOK(t, b, "getWorkspaceInfo", map[string]any{})
}
