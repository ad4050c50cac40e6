//go:build !windows

package parity_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOneVersion: the version stamped into the build is the one every
// surface shows: vx --version, vx version, vxd --version (each with the
// stamped commit and the OS/architecture it was built for), vxd status, the
// MCP serverInfo of every client, and vx info / getWorkspaceInfo (vx's and
// the daemon's).
func TestOneVersion(t *testing.T) {
	root := workspace(t, "ws")
	for _, c := range []struct {
		bin  string
		args []string
		want string
	}{
		{vxBin, []string{"--version"}, "vx " + stamped + " (commit " + stampedCommit + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"},
		{vxBin, []string{"version"}, "vx " + stamped + " (commit " + stampedCommit + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"},
		{vxdBin, []string{"--version"}, "vxd " + stamped + " (commit " + stampedCommit + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"},
	} {
		r := run(t, root, c.bin, c.args...)
		if r.Code != 0 || strings.TrimSpace(r.Stdout) != c.want {
			t.Errorf("want %q\n%s", c.want, r)
		}
	}
	endpoint, token := startDaemon(t, root)
	r := run(t, root, vxdBin, "status", "--format", "json")
	var st struct {
		Version string `json:"version"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &st) != nil || st.Version != stamped {
		t.Errorf("vxd status: want version %s\n%s", stamped, r)
	}
	clients := map[string]*mcp.ClientSession{
		"http " + revStateless: connect(t, endpoint, token, revStateless),
		"http " + revSession:   connect(t, endpoint, token, revSession),
		"vx mcp":               connectShim(t, root),
	}
	for name, cs := range clients {
		ir := cs.InitializeResult()
		if ir == nil || ir.ServerInfo == nil || ir.ServerInfo.Version != stamped {
			t.Errorf("%s: serverInfo %+v, want version %s", name, ir, stamped)
		}
	}
	type info struct {
		Versions struct {
			VX string `json:"vx"`
		} `json:"versions"`
		Daemon struct {
			Version string `json:"version"`
		} `json:"daemon"`
	}
	var fromTool, fromVerb info
	b, _ := json.Marshal(callTool(t, clients["http "+revStateless], "getWorkspaceInfo", map[string]any{}))
	_ = json.Unmarshal(b, &fromTool)
	r = run(t, root, vxBin, "info", "--format", "json")
	_ = json.Unmarshal([]byte(r.Stdout), &fromVerb)
	for what, got := range map[string]string{"getWorkspaceInfo versions.vx": fromTool.Versions.VX, "getWorkspaceInfo daemon.version": fromTool.Daemon.Version,
		"vx info versions.vx": fromVerb.Versions.VX, "vx info daemon.version": fromVerb.Daemon.Version} {
		if got != stamped {
			t.Errorf("%s = %q, want %s", what, got, stamped)
		}
	}
}
