// Package live_test runs the real vx and vxd binaries and checks what a
// person watching a run relies on: the daemon's /events feed (shell runs
// and runTasks runs, in order; a stalled client never slows a run), the
// guard in front of the status page and the feed (token, cookie, Origin,
// Host), and `vxd status --watch`. Workspaces are temporary copies of
// examples/demo or generated ones; nothing here mocks a part of vx.
package live_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

func TestMain(m *testing.M) { os.Exit(buildAndRun(m)) }

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "vx-live-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	vxBin, vxdBin = filepath.Join(dir, "vx"), filepath.Join(dir, "vxd")
	for _, b := range []struct{ out, pkg string }{{vxBin, "./cmd/vx"}, {vxdBin, "./cmd/vxd"}} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Dir = moduleRoot()
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", b.pkg+":", err)
			return 1
		}
	}
	code := m.Run()
	stopStrays()
	return code
}

// moduleRoot is the source the binaries are built from: VX_TEST_SRC (a
// snapshot of the tree) or this repository.
func moduleRoot() string {
	if d := os.Getenv("VX_TEST_SRC"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	return filepath.Join(wd, "..", "..")
}

// baseEnv is the test's environment without variables that change what vx
// or vxd does.
func baseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "VX_LOG", name == "CI", name == "TOKEN", name == "NODE_ENV", name == "VXD_IDLE_TIMEOUT",
			name == "VX_EVENTS_FD", name == "VX_CONCURRENCY", strings.HasPrefix(name, "GIT_"):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// tempRoot is a fresh directory without symlinks in its path, so it
// compares equal to what the daemon reports.
func tempRoot(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// demo copies examples/demo (without build output or state) into a fresh
// temp dir and returns it.
func demo(t *testing.T) string {
	t.Helper()
	src := filepath.Join(moduleRoot(), "examples", "demo")
	dst := filepath.Join(tempRoot(t), "demo")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "dist" || d.Name() == ".vx") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying examples/demo: %v", err)
	}
	t.Cleanup(func() { stopDaemon(t, dst) })
	return dst
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// result is what one process did.
type result struct {
	cmd            string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("%s: exit %d\n--- stdout:\n%s\n--- stderr:\n%s", r.cmd, r.code, r.stdout, r.stderr)
}

// run runs bin in dir and waits for it; the deadline only keeps a hung
// process from hanging the suite.
func run(t *testing.T, dir string, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = baseEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{cmd: filepath.Base(bin) + " " + strings.Join(args, " "), stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("running %s: %v", r.cmd, err)
	}
	return r
}

// vxRun runs `vx run ARGS --format json`, wants exit 0 and returns the
// summary it printed.
func vxRun(t *testing.T, dir string, args ...string) *wire.RunSummary {
	t.Helper()
	r := run(t, dir, vxBin, append(append([]string{"run"}, args...), "--format", "json")...)
	if r.code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	var s wire.RunSummary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
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
	if r := run(t, root, vxdBin, "start"); r.code != 0 {
		t.Fatalf("vxd start failed\n%s", r)
	}
	r := run(t, root, vxdBin, "status", "--json")
	if r.code != 0 {
		t.Fatalf("vxd status --json after start\n%s", r)
	}
	var st wire.Status
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Port == 0 {
		t.Fatalf("vxd status --json: no port (%v)\n%s", err, r)
	}
	daemonPIDs.Store(st.PID, root)
	tr := run(t, root, vxdBin, "token")
	if tr.code != 0 || strings.TrimSpace(tr.stdout) == "" {
		t.Fatalf("vxd token\n%s", tr)
	}
	return &vxd{root: root, port: st.Port, token: strings.TrimSpace(tr.stdout)}
}

// stopDaemon stops the workspace's daemon, if any, and makes sure the
// process it named is gone.
func stopDaemon(t *testing.T, root string) {
	var disc wire.Discovery
	b, _ := os.ReadFile(filepath.Join(root, ".vx", "daemon", "vxd.json"))
	_ = json.Unmarshal(b, &disc)
	run(t, root, vxdBin, "stop")
	if disc.PID > 0 && alive(disc.PID) && strings.Contains(cmdline(disc.PID), "vxd") {
		_ = syscall.Kill(disc.PID, syscall.SIGKILL)
	}
}

// stopStrays kills daemons the tests started that are still alive.
func stopStrays() {
	daemonPIDs.Range(func(k, v any) bool {
		if pid := k.(int); alive(pid) && strings.Contains(cmdline(pid), "vxd") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return true
	})
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// A zombie is dead for our purpose.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
		return false
	}
	return true
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
}

// waitFor polls cond until it holds; the limit only keeps the suite from
// hanging, it is not what the test asserts.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dialFeed opens the daemon's /events websocket with the given headers.
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
