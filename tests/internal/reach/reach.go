// Package reach is what the suites checking vx where users get it share
// (tests/npm: installed from an npm registry; tests/arm64: the linux/arm64
// build under qemu-user): a generated workspace, and the checks a user
// relies on first, each through the command line given.
package reach

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// Tool is an external program a suite needs. Outside CI a missing one
// skips the test, saying so; with CI=true it fails it.
func Tool(t *testing.T, name, why string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not installed ("+why+")")
	}
	return p
}

// Missing skips the test with the reason, or fails it on CI.
func Missing(t *testing.T, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(reason + "; CI must have it (.ci/run installs it)")
	}
	t.Skip(reason)
}

// Workspace writes a fresh git repository with a vx workspace of two
// projects, b's build reading a's output, and returns its root.
func Workspace(t *testing.T, extra map[string]string) string {
	t.Helper()
	root := harness.TempRoot(t)
	files := map[string]string{
		"vx.workspace.json":   `{"projects": ["pkgs/*"], "tasks": {"build": {"dependsOn": ["^build"], "inputs": ["src/**", "package.json"], "outputs": ["dist/**"]}}}`,
		"pkgs/a/package.json": `{"name": "a", "scripts": {"build": "mkdir -p dist && cp src/a.txt dist/a.txt"}}`,
		"pkgs/a/src/a.txt":    "a\n",
		"pkgs/b/package.json": `{"name": "b", "dependencies": {"a": "*"}, "scripts": {"build": "mkdir -p dist && cat src/b.txt ../a/dist/a.txt > dist/b.txt"}}`,
		"pkgs/b/src/b.txt":    "b\n",
		".gitignore":          "node_modules/\n.vx/\ndist/\n",
	}
	for name, text := range extra {
		files[name] = text
	}
	for name, text := range files {
		harness.WriteFile(t, filepath.Join(root, name), text)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@vx", "-c", "user.name=t", "commit", "-qm", "start"}} {
		if r := harness.Run(t, root, harness.Env(), "git", args...); r.Code != 0 {
			t.Fatalf("%s", r)
		}
	}
	return root
}

// Command is how a suite runs one binary: the program and the arguments
// before vx's own (e.g. qemu-aarch64-static and the binary's path).
type Command []string

// Run runs c with args in dir.
func (c Command) Run(t *testing.T, dir string, env []string, args ...string) harness.Result {
	t.Helper()
	return harness.Run(t, dir, env, c[0], append(append([]string{}, c[1:]...), args...)...)
}

// summary is the part of `vx run --format json` the checks read.
type summary struct {
	OK     bool `json:"ok"`
	Totals struct {
		Tasks, Passed, Cached int
	} `json:"totals"`
}

// ColdWarm runs build twice in root: the first run executes both tasks,
// the second takes both from the cache.
func ColdWarm(t *testing.T, vx Command, root string, env []string) {
	t.Helper()
	for i, wantCached := range []int{0, 2} {
		r := vx.Run(t, root, env, "run", "build", "--format", "json")
		var s summary
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &s) != nil || !s.OK || s.Totals.Tasks != 2 || s.Totals.Cached != wantCached {
			t.Fatalf("run %d of build: want 2 tasks passed, %d from the cache\n%s", i+1, wantCached, r)
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "pkgs/b/dist/b.txt"))
	if err != nil || string(b) != "b\na\n" {
		t.Fatalf("pkgs/b/dist/b.txt after the runs: %q, %v", b, err)
	}
}

// Why edits a's source, runs build again and asks vx why a#build re-ran:
// the answer names the file.
func Why(t *testing.T, vx Command, root string, env []string) {
	t.Helper()
	harness.WriteFile(t, filepath.Join(root, "pkgs/a/src/a.txt"), "a, edited\n")
	if r := vx.Run(t, root, env, "run", "build"); r.Code != 0 {
		t.Fatalf("run after the edit\n%s", r)
	}
	if r := vx.Run(t, root, env, "why", "a#build"); r.Code != 0 || !strings.Contains(r.Stdout, "src/a.txt") {
		t.Fatalf("vx why a#build: want the edited file named\n%s", r)
	}
}

// MCP starts the stdio MCP server `mcp` (e.g. vx mcp, npx vx mcp) in root,
// initializes a session and lists the tools: the questions a user asks first are among
// them (listTasks, whyDidThisRerun, diagnose). The daemon it started is stopped by stop (vxd stop) afterwards.
func MCP(t *testing.T, mcpCmd Command, root string, env []string, stop func()) {
	t.Helper()
	defer stop()
	cmd := exec.Command(mcpCmd[0], mcpCmd[1:]...)
	cmd.Dir, cmd.Env = root, env
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "vx-reach-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("%v: initialize: %v", mcpCmd, err)
	}
	defer cs.Close()
	if ir := cs.InitializeResult(); ir == nil || ir.ServerInfo == nil || ir.ServerInfo.Name != "vx" {
		t.Errorf("%v: initialize answered %+v, want serverInfo vx", mcpCmd, ir)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("%v: tools/list: %v", mcpCmd, err)
	}
	names := map[string]bool{}
	for _, tool := range res.Tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"listTasks", "whyDidThisRerun", "diagnose"} {
		if !names[want] {
			t.Errorf("%v: tools/list lacks %s (has %d tools)", mcpCmd, want, len(res.Tools))
		}
	}
	if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Logf("closing the session: %v", err)
	}
}
