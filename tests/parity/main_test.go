//go:build !windows

// Package parity_test holds the promise that a verb's `--format json` is
// the tool's structured answer: it builds the real vx and vxd, makes a
// small workspace with a history (a failed run, then a re-run caused by an
// edit), starts vxd, and for every tool vxd lists calls the tool with the
// official MCP Go SDK and the equivalent vx command line, decodes both and
// compares them. A tool without a row in the table fails the suite.
package parity_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// The binaries, built once by TestMain side by side (vxd finds the vx
// beside itself for runTasks, planTasks and diagnose), stamped with
// version stamped as the Makefile stamps a release.
var binDir, vxBin, vxdBin string

const (
	stamped       = "0.0.0-parity-stamp"
	stampedCommit = "c0ffee0parity"
)

func TestMain(m *testing.M) {
	stamp := []string{"-ldflags", "-X github.com/vzn/vx/protocol/version.Version=" + stamped + " -X github.com/vzn/vx/protocol/version.Commit=" + stampedCommit}
	os.Exit(harness.Suite{
		TempPrefix: "vx-parity-test-",
		Binaries: []harness.Binary{
			{Dest: &vxBin, Path: "bin/vx", Pkg: "./cmd/vx", Flags: stamp},
			{Dest: &vxdBin, Path: "bin/vxd", Pkg: "./cmd/vxd", Flags: stamp},
		},
		Ready: func(dir string) { binDir = filepath.Join(dir, "bin") },
	}.Run(m))
}

// env is what every process runs with: the test's environment without
// what changes vx's behaviour, the binaries first on PATH (so vx doctor and
// diagnose find the same vx), and an idle timeout that ends a daemon a
// failed test leaves behind.
func env() []string {
	out := harness.Env("VX_LOG", "CI", "NODE_ENV", "VXD_IDLE_TIMEOUT", "VX_EVENTS_FD", "PATH")
	out = slices.DeleteFunc(out, func(kv string) bool { return strings.HasPrefix(kv, "VX_REMOTE_") || strings.HasPrefix(kv, "TURBO_") })
	return append(out, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "VXD_IDLE_TIMEOUT=5m")
}

// extraEnv is added to env() for every process of one workspace (vx and
// the vxd it starts must see the same settings).
var extraEnv sync.Map // root → []string

// withEnv adds variables to the environment of root's processes for the
// rest of the test.
func withEnv(t *testing.T, root string, kv ...string) {
	prev, _ := extraEnv.Load(root)
	old, _ := prev.([]string)
	extraEnv.Store(root, append(slices.Clone(old), kv...))
	t.Cleanup(func() { extraEnv.Delete(root) })
}

func run(t *testing.T, dir, bin string, args ...string) harness.Result {
	t.Helper()
	e := env()
	if x, ok := extraEnv.Load(dir); ok {
		e = append(e, x.([]string)...)
	}
	return harness.Run(t, dir, e, bin, args...)
}

// secret is DEPLOY_TOKEN's value, a secret of the workspace's deploy task:
// no answer and no verb output may hold it in clear.
var secret = fmt.Sprintf("parity-s3cr3t-%d", time.Now().UnixNano())

// workspace copies testdata/NAME into a fresh directory and makes it a git
// repository with one commit; its processes get DEPLOY_TOKEN=secret.
func workspace(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(harness.TempRoot(t), name)
	harness.CopyTree(t, filepath.Join("testdata", name), dst)
	withEnv(t, dst, "DEPLOY_TOKEN="+secret)
	git(t, dst, "init", "-q", "-b", "main")
	commit(t, dst, "workspace")
	return dst
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func commit(t *testing.T, dir, msg string) {
	t.Helper()
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.email=t@vx", "-c", "user.name=t", "commit", "-qm", msg)
}

// startDaemon runs `vxd start` in root, stops it when the test ends, and
// returns its endpoint and token.
func startDaemon(t *testing.T, root string) (endpoint, token string) {
	t.Helper()
	if r := run(t, root, vxdBin, "start"); r.Code != 0 {
		t.Fatalf("vxd start\n%s", r)
	}
	t.Cleanup(func() { stopDaemon(t, root) })
	r := run(t, root, vxdBin, "status", "--format", "json")
	var st struct {
		URL string `json:"url"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &st) != nil || st.URL == "" {
		t.Fatalf("vxd status after start\n%s", r)
	}
	tr := run(t, root, vxdBin, "token")
	if tr.Code != 0 {
		t.Fatalf("vxd token\n%s", tr)
	}
	return st.URL, strings.TrimSpace(tr.Stdout)
}

// stopDaemon stops root's daemon and makes sure the process is gone.
func stopDaemon(t *testing.T, root string) {
	var d struct {
		PID int `json:"pid"`
	}
	b, _ := os.ReadFile(filepath.Join(root, ".vx", "daemon", "vxd.json"))
	_ = json.Unmarshal(b, &d)
	run(t, root, vxdBin, "stop")
	if d.PID > 0 && harness.Alive(d.PID) && strings.Contains(harness.Cmdline(d.PID), "vxd") {
		_ = syscall.Kill(d.PID, syscall.SIGKILL)
	}
}

// The two MCP eras vxd serves, by a revision of each: stateless, and with sessions.
const (
	revStateless = "2026-07-28"
	revSession   = "2025-11-25"
)

// connect opens an SDK session straight at the daemon in the revision.
func connect(t *testing.T, endpoint, token, revision string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: harness.BearerClient(token), MaxRetries: -1}
	return open(t, tr, revision)
}

// connectShim opens an SDK session through `vx mcp` in root.
func connectShim(t *testing.T, root string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(vxBin, "mcp")
	cmd.Dir = root
	cmd.Env = env()
	if x, ok := extraEnv.Load(root); ok {
		cmd.Env = append(cmd.Env, x.([]string)...)
	}
	return open(t, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, "")
}

func open(t *testing.T, tr mcp.Transport, revision string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "vx-parity-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listTools is every tool the daemon lists.
func listTools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tl.Name)
	}
	return names
}

// callTool calls a tool that must answer (not isError) and returns its
// structuredContent, decoded as plain JSON values.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	if res.IsError || res.StructuredContent == nil {
		raw, _ := json.Marshal(res)
		t.Fatalf("tools/call %s %v: want a structured answer, got\n%s", name, args, raw)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		t.Errorf("%s %v answered the secret in clear:\n%s", name, args, b)
	}
	b, err = json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, name+"'s structuredContent", b)
}

func decode(t *testing.T, what string, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", what, err, b)
	}
	return v
}
