package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/vzn/vx/protocol/layout"
	mcpwire "github.com/vzn/vx/protocol/mcp"
	"github.com/vzn/vx/protocol/wire"
)

// helperRootEnv names the workspace TestDaemonProcessHelper serves when
// this test binary is started as a second daemon process.
const helperRootEnv = "VX_SERVER_TEST_HELPER_ROOT"

// TestDaemonProcessHelper is not a test of its own: started by
// TestSecondDaemonProcess as a child of this test binary, it serves the
// workspace named in helperRootEnv until it is killed. In a normal run it
// does nothing.
func TestDaemonProcessHelper(t *testing.T) {
	root := os.Getenv(helperRootEnv)
	if root == "" {
		return
	}
	err := Serve(context.Background(), Options{Root: root, IdleTimeout: -1, Logger: zerolog.Nop()})
	fmt.Fprintf(os.Stderr, "helper daemon: Serve returned %v\n", err)
	os.Exit(3)
}

// readDiscovery reads root's discovery file, nil when it is absent or
// unreadable.
func readDiscovery(root string) *wire.Discovery {
	b, err := os.ReadFile(layout.Discovery(root))
	if err != nil {
		return nil
	}
	var d wire.Discovery
	if json.Unmarshal(b, &d) != nil {
		return nil
	}
	return &d
}

// TestSecondDaemonProcess: a daemon in another process owns the
// workspace, so Serve here refuses with ErrRunning and leaves that
// daemon's discovery file alone; once that process dies (SIGKILL: no
// cleanup of its own) its lock is free, and a new Serve takes the
// workspace over, replacing the stale discovery file.
func TestSecondDaemonProcess(t *testing.T) {
	root := newWorkspace(t, baseConfig)
	cmd := exec.Command(os.Args[0], "-test.run=^TestDaemonProcessHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperRootEnv+"="+root)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	var other *wire.Discovery
	eventually(t, "the other process announcing its daemon", func() bool {
		select {
		case err := <-exited:
			t.Fatalf("the helper daemon exited: %v\n%s", err, stderr.String())
		default:
		}
		other = readDiscovery(root)
		return other != nil && other.PID == cmd.Process.Pid
	})

	err := Serve(context.Background(), Options{Root: root, IdleTimeout: -1, Logger: zerolog.Nop()})
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("Serve while another process serves the workspace = %v, want ErrRunning", err)
	}
	if _, err := lockDaemon(root); !errors.Is(err, ErrRunning) {
		t.Errorf("Lock while another process holds it = %v, want ErrRunning", err)
	}
	if d := readDiscovery(root); d == nil || *d != *other {
		t.Errorf("the refused Serve touched the discovery file: %+v, want %+v", d, other)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	exited <- nil // for the cleanup
	if d := readDiscovery(root); d == nil || d.PID != other.PID {
		t.Fatalf("after SIGKILL the dead daemon's discovery file should still be there (nothing removed it): %+v", d)
	}
	r := serve(t, root, -1)
	d := readDiscovery(root)
	if d == nil || d.PID != os.Getpid() || d.Port != r.disc.Port || d.Token == other.Token {
		t.Errorf("discovery after the takeover %+v; want this process's daemon (port %d), a new token", d, r.disc.Port)
	}
	if st := r.status(t); st.PID != os.Getpid() || st.Workspace != root {
		t.Errorf("status after the takeover %+v", st)
	}
}

// TestReloadOnProjectFile: an edit of a project's package.json (a file the
// watcher follows in every project directory) reloads the model, and the
// reload names it.
func TestReloadOnProjectFile(t *testing.T) {
	root := newWorkspace(t, `{"projects": ["apps/*"], "tasks": {"build": {"command": "true"}, "lint": {}}}`)
	r := serve(t, root, -1)
	cs := r.connect(t, nil)
	if cmd := taskCommand(t, cs, "web", "lint"); cmd != "" {
		t.Fatalf("web#lint has command %q before its script exists", cmd)
	}
	pkg := filepath.Join(root, "apps", "web", "package.json")
	if err := os.WriteFile(pkg, []byte(`{"name": "web", "scripts": {"test": "true", "lint": "echo linting"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "web#lint taking the new script", func() bool { return taskCommand(t, cs, "web", "lint") == "echo linting" })
	st := r.status(t)
	if st.LastReload == nil || !st.LastReload.OK || st.LastReload.Trigger != "apps/web/package.json" {
		t.Errorf("last reload %+v; want an OK reload triggered by apps/web/package.json", st.LastReload)
	}
}

// connect opens an MCP session at the daemon with the official SDK, in
// the session era (2025-11-25: the 2026-07-28 revision has no sessions).
func (r *running) connect(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", r.disc.Port), MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{r.disc.Token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "server-test", Version: "1"}, opts).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting to the daemon: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// taskCommand is project#task's resolved command as the daemon's getConfig
// answers it ("" for a task without one).
func taskCommand(t *testing.T, cs *mcp.ClientSession, project, task string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "getConfig", Arguments: map[string]any{"target": project + "#" + task}})
	if err != nil || res.IsError {
		t.Fatalf("getConfig %s#%s: %v %+v", project, task, err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Projects []struct {
			Tasks []struct {
				Command string `json:"command"`
			} `json:"tasks"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Projects) != 1 || len(out.Projects[0].Tasks) != 1 {
		t.Fatalf("getConfig %s#%s answered %s (%v)", project, task, b, err)
	}
	return out.Projects[0].Tasks[0].Command
}

// TestIdleWaitsForSessions: an open MCP session keeps an idle daemon
// serving well past its idle timeout; once the session ends, the daemon
// idles out and removes its discovery file.
func TestIdleWaitsForSessions(t *testing.T) {
	root := newWorkspace(t, baseConfig)
	const idle = 200 * time.Millisecond
	r, done := serveIdle(t, root, idle)
	cs := r.connect(t, nil)
	// Ten idle timeouts with the session open and silent.
	select {
	case err := <-done:
		t.Fatalf("the daemon stopped (%v) with a session open", err)
	case <-time.After(10 * idle):
	}
	if st := r.status(t); st.Sessions != 1 {
		t.Errorf("status says %d sessions, want the open one", st.Sessions)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("closing the session: %v", err)
	}
	idlesOut(t, root, done)
}

// TestIdleWaitsForARequestBeingRead: a request counts from the moment the
// daemon lets it in, not from when MCP decodes it. A tools/call whose
// header came but whose body is still on its way three idle timeouts
// later keeps the daemon serving, is answered once the body is whole, and
// the daemon idles out after it. (Counted only at MCP's dispatch, such a
// request was cut off by the idle stop, as a loaded machine also did to
// requests that waited for the CPU between their header and dispatch.)
func TestIdleWaitsForARequestBeingRead(t *testing.T) {
	root := newWorkspace(t, baseConfig)
	const idle = 200 * time.Millisecond
	r, done := serveIdle(t, root, idle)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": "listTasks", "arguments": map[string]any{},
		"_meta": map[string]any{mcpwire.MetaProtocolVersion: mcpwire.Rev20260728, mcpwire.MetaClientCapabilities: map[string]any{},
			mcpwire.MetaClientInfo: map[string]string{"name": "slow", "version": "1"}}}})
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.disc.Port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	half := len(body) / 2
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\n%s: %s\r\n%s: tools/call\r\n%s: listTasks\r\nContent-Length: %d\r\n\r\n",
		wire.MCPPath, r.disc.Port, r.disc.Token, mcpwire.HeaderProtocolVersion, mcpwire.Rev20260728, mcpwire.HeaderMethod, mcpwire.HeaderName, len(body))
	if _, err := conn.Write(append([]byte(head), body[:half]...)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the daemon stopped (%v) while a request's body was on its way", err)
	case <-time.After(3 * idle):
	}
	if _, err := conn.Write(body[half:]); err != nil {
		t.Fatalf("sending the rest of the body: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the answer to the slow request: %v", err)
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"result"`) || !strings.Contains(string(answer), "web#build") {
		t.Fatalf("the slow request was answered %d %v:\n%s", resp.StatusCode, err, answer)
	}
	conn.Close()
	idlesOut(t, root, done)
}

// serveIdle starts Serve on root with the idle timeout and no session
// timeout, and returns it with the channel Serve's result arrives on.
func serveIdle(t *testing.T, root string, idle time.Duration) (*running, chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ready := make(chan *wire.Discovery, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Options{Root: root, IdleTimeout: idle, SessionIdle: -1, Logger: zerolog.Nop(), Ready: func(d *wire.Discovery) { ready <- d }})
	}()
	r := &running{done: done, stop: cancel}
	select {
	case r.disc = <-ready:
	case err := <-done:
		t.Fatalf("Serve ended before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("Serve not ready after 30s")
	}
	return r, done
}

// idlesOut waits for Serve to return by itself, and checks it cleaned up.
func idlesOut(t *testing.T, root string, done chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve = %v after idling out", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon still serves 30s after its last session or request")
	}
	if _, err := os.Stat(layout.Discovery(root)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("discovery file left behind: %v", err)
	}
}

// TestIdleCountsRequests: in the stateless era only requests
// keep a daemon up: one every tenth of the idle timeout keeps it serving
// for three timeouts; when they stop, it idles out.
func TestIdleCountsRequests(t *testing.T) {
	root := newWorkspace(t, baseConfig)
	const idle = time.Second
	r, done := serveIdle(t, root, idle)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", r.disc.Port), MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{r.disc.Token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "server-test", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	defer cs.Close()
	for range 30 {
		select {
		case err := <-done:
			t.Fatalf("the daemon stopped (%v) while requests kept coming", err)
		case <-time.After(idle / 10):
		}
		// A tools/call: a list may be answered from the client's cache
		// (the era's ttlMs), a call always reaches the daemon.
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "listTasks", Arguments: map[string]any{}}); err != nil || res.IsError {
			t.Fatalf("listTasks: %v %+v", err, res)
		}
	}
	if st := r.status(t); st.Sessions != 0 {
		t.Errorf("status says %d sessions; the stateless era has none", st.Sessions)
	}
	idlesOut(t, root, done)
}
