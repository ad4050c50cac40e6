//go:build !windows

// Package mcp_test runs the real vx and vxd binaries and talks to them with
// the official MCP Go SDK as an independent client: straight over the
// daemon's streamable HTTP endpoint and through the `vx mcp` stdio shim,
// in temporary copies of the workspaces under testdata/. Nothing here mocks
// a part of vx; a test asserts what an agent or a person relies on.
package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The binaries built once by TestMain, side by side (vx mcp starts the vxd
// beside itself), plus a vxd that claims another version.
var (
	binDir string
	vxBin  string
	vxdBin string
	oldBin string // a vx/vxd pair built with another version.Version, in its own dir
)

const oldVersion = "0.0.1-mcp-test-old"

func TestMain(m *testing.M) {
	os.Exit(harness.Suite{
		TempPrefix: "vx-mcp-test-",
		Binaries: []harness.Binary{
			{Dest: &vxBin, Path: "bin/vx", Pkg: "./cmd/vx"},
			{Dest: &vxdBin, Path: "bin/vxd", Pkg: "./cmd/vxd"},
			// The old daemon: the same code, another version string.
			{Dest: &oldBin, Path: "old/vxd", Pkg: "./cmd/vxd", Flags: []string{"-ldflags", "-X github.com/vzn/vx/protocol/version.Version=" + oldVersion}},
		},
		Ready: func(dir string) { binDir = filepath.Join(dir, "bin") },
		Done:  stopStrays,
	}.Run(m))
}

// baseEnv is the environment every process starts from: the test's own,
// without variables that would change what vx or vxd does.
func baseEnv() []string {
	return harness.Env("VX_LOG", "CI", "TOKEN", "NODE_ENV", "VXD_IDLE_TIMEOUT", "VX_EVENTS_FD")
}

// workspace copies testdata/NAME into a fresh temp dir, makes it a git
// repository with one commit (inputs are the files git does not ignore)
// and returns it. The path has no symlinks, so it compares equal to what
// the daemon reports.
func workspace(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(harness.TempRoot(t), name)
	harness.CopyTree(t, filepath.Join("testdata", name), dst)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.email=t@vx", "-c", "user.name=t", "commit", "-qm", "workspace"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dst
		cmd.Env = baseEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Cleanup(func() { stopDaemon(t, dst) })
	return dst
}

// result is what one process did.
type result = harness.Result

// run runs bin in dir with baseEnv plus env and waits for it.
func run(t *testing.T, dir string, env []string, bin string, args ...string) result {
	t.Helper()
	return harness.Run(t, dir, append(baseEnv(), env...), bin, args...)
}

// runSummary is the part of `vx run --format json` the tests read.
type runSummary struct {
	RunID    string `json:"runId"`
	ExitCode int    `json:"exitCode"`
	Status   string `json:"status"`
	Tasks    []struct {
		TaskID   string `json:"taskId"`
		Status   string `json:"status"`
		Cache    string `json:"cache"`
		Key      string `json:"key"`
		TimedOut bool   `json:"timedOut"`
	} `json:"tasks"`
}

// vxRun runs `vx run ARGS --format json`, checks the exit code and returns
// the summary.
func vxRun(t *testing.T, dir string, env []string, wantCode int, args ...string) runSummary {
	t.Helper()
	r := run(t, dir, env, vxBin, append(append([]string{"run"}, args...), "--format", "json")...)
	if r.Code != wantCode {
		t.Fatalf("want exit %d\n%s", wantCode, r)
	}
	var s runSummary
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("vx run printed no summary: %v\n%s", err, r)
	}
	return s
}

// discovery is .vx/daemon/vxd.json.
type discovery struct {
	PID     int    `json:"pid"`
	Port    int    `json:"port"`
	Token   string `json:"token"`
	Version string `json:"version"`
	Root    string `json:"root"`
}

func readDiscovery(root string) (*discovery, error) {
	b, err := os.ReadFile(filepath.Join(root, ".vx", "daemon", "vxd.json"))
	if err != nil {
		return nil, err
	}
	var d discovery
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// runningDaemon is the discovery of the daemon serving root, its pid
// registered so that the suite's end stops it should a test not.
func runningDaemon(t *testing.T, root string) *discovery {
	t.Helper()
	d, err := readDiscovery(root)
	if err != nil {
		t.Fatal(err)
	}
	daemonPIDs.Store(d.PID, root)
	return d
}

// status is the part of `vxd status --json` the tests read.
type status struct {
	PID         int    `json:"pid"`
	Port        int    `json:"port"`
	URL         string `json:"url"`
	Version     string `json:"version"`
	Workspace   string `json:"workspace"`
	Sessions    int    `json:"sessions"`
	ConfigError string `json:"configError"`
}

func vxdStatus(t *testing.T, root string) (*status, result) {
	t.Helper()
	r := run(t, root, nil, vxdBin, "status", "--json")
	if r.Code != 0 {
		return nil, r
	}
	var st status
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("vxd status --json is not JSON: %v\n%s", err, r)
	}
	return &st, r
}

// daemonPIDs remembers every daemon pid the tests saw, to stop strays.
var daemonPIDs sync.Map // pid → root

// startDaemon runs `vxd start` in root and returns its URL and token, read
// back from `vxd status --json` and `vxd token`.
func startDaemon(t *testing.T, root string, env ...string) (endpoint, token string, st *status) {
	t.Helper()
	if r := run(t, root, env, vxdBin, "start"); r.Code != 0 {
		t.Fatalf("vxd start failed\n%s", r)
	}
	st, r := vxdStatus(t, root)
	if st == nil {
		t.Fatalf("vxd status after start\n%s", r)
	}
	daemonPIDs.Store(st.PID, root)
	tr := run(t, root, nil, vxdBin, "token")
	if tr.Code != 0 {
		t.Fatalf("vxd token\n%s", tr)
	}
	return st.URL, strings.TrimSpace(tr.Stdout), st
}

// stopDaemon stops the workspace's daemon, if any, and makes sure the
// process it named is gone.
func stopDaemon(t *testing.T, root string) {
	d, _ := readDiscovery(root)
	run(t, root, nil, vxdBin, "stop")
	if d != nil && d.PID > 0 && harness.Alive(d.PID) && strings.Contains(harness.Cmdline(d.PID), "vxd") {
		_ = syscall.Kill(d.PID, syscall.SIGKILL)
	}
}

// stopStrays kills daemons the tests saw that are still alive.
func stopStrays() {
	daemonPIDs.Range(func(k, v any) bool {
		pid := k.(int)
		if harness.Alive(pid) && strings.Contains(harness.Cmdline(pid), "vxd") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return true
	})
}

// daemonsFor lists live vxd serve processes for root.
func daemonsFor(root string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !harness.Alive(pid) {
			continue
		}
		c := harness.Cmdline(pid)
		if strings.Contains(c, "vxd serve") && strings.Contains(c, root) {
			out = append(out, pid)
		}
	}
	return out
}

// connectHTTP opens an SDK session straight at the daemon.
func connectHTTP(t *testing.T, endpoint, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: harness.BearerClient(token), MaxRetries: -1}
	return connect(t, tr, opts)
}

// shimCmd is `vx mcp` in dir.
func shimCmd(dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(vxBin, "mcp")
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), env...)
	return cmd
}

// connectShim opens an SDK session through `vx mcp` in dir.
func connectShim(t *testing.T, dir string, opts *mcp.ClientOptions, env ...string) *mcp.ClientSession {
	t.Helper()
	return connect(t, &mcp.CommandTransport{Command: shimCmd(dir, env...), TerminateDuration: 5 * time.Second}, opts)
}

func connect(t *testing.T, tr mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "vx-mcp-test", Version: "1"}, opts)
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // the session era; the stateless era has its own tests
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// transport names the two ways the same table runs.
type transport struct {
	name    string
	connect func(t *testing.T, root string, opts *mcp.ClientOptions, env ...string) *mcp.ClientSession
}

var transports = []transport{
	{"http", func(t *testing.T, root string, opts *mcp.ClientOptions, env ...string) *mcp.ClientSession {
		endpoint, token, _ := startDaemon(t, root, env...)
		return connectHTTP(t, endpoint, token, opts)
	}},
	{"shim", func(t *testing.T, root string, opts *mcp.ClientOptions, env ...string) *mcp.ClientSession {
		cs := connectShim(t, root, opts, env...)
		if d, err := readDiscovery(root); err == nil {
			daemonPIDs.Store(d.PID, root)
		}
		return cs
	}},
}

// answer is one tools/call result, decoded.
type answer struct {
	res  *mcp.CallToolResult
	text string
	raw  []byte // the whole result as JSON
}

// structured decodes the structured content into v.
func (a answer) structured(t *testing.T, v any) {
	t.Helper()
	b, err := json.Marshal(a.res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding structuredContent: %v\n%s", err, b)
	}
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	raw, _ := json.Marshal(res)
	a := answer{res: res, raw: raw}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			a.text += tc.Text
		}
	}
	return a
}

// callOK calls a tool that must answer: not isError, structuredContent
// present and equal to the JSON of the text content.
func callOK(t *testing.T, cs *mcp.ClientSession, name string, args any) answer {
	t.Helper()
	a := call(t, cs, name, args)
	if a.res.IsError {
		t.Fatalf("%s %v answered isError: %s", name, args, a.text)
	}
	if a.res.StructuredContent == nil {
		t.Fatalf("%s %v: no structuredContent\n%s", name, args, a.raw)
	}
	var fromText any
	if err := json.Unmarshal([]byte(a.text), &fromText); err != nil {
		t.Fatalf("%s: the text content is not JSON: %v\n%s", name, err, a.text)
	}
	b, _ := json.Marshal(a.res.StructuredContent)
	var fromStruct any
	_ = json.Unmarshal(b, &fromStruct)
	if !jsonEqual(fromText, fromStruct) {
		t.Fatalf("%s: structuredContent and text differ\n--- structured:\n%s\n--- text:\n%s", name, b, a.text)
	}
	return a
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// callRefused calls a tool that must refuse with an isError result whose
// text names want.
func callRefused(t *testing.T, cs *mcp.ClientSession, name string, args any, want string) answer {
	t.Helper()
	a := call(t, cs, name, args)
	if !a.res.IsError {
		t.Fatalf("%s %v: want an isError refusal naming %q, got an answer:\n%s", name, args, want, a.text)
	}
	if !strings.Contains(a.text, want) {
		t.Fatalf("%s %v: the refusal does not name %q:\n%s", name, args, want, a.text)
	}
	return a
}

func toolNames(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// snapshotTree lists every path under dir (relative, with a trailing / for
// directories).
func snapshotTree(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out[rel] = true
		return nil
	})
	return out
}
