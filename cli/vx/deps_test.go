package vx

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goList is `go list -deps PKG`: every package PKG links.
func goList(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(gobin, "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	return deps
}

// TestBinariesLinkWhatTheyUse: vx (the runner, the question verbs and the
// stdio shim) links no part of the daemon's server, HTTP endpoint or MCP
// server, nor their websocket and file-watching libraries; vxd does.
func TestBinariesLinkWhatTheyUse(t *testing.T) {
	daemonOnly := []string{
		"github.com/vzn/vx/daemon/server",
		"github.com/vzn/vx/httpapi",
		"github.com/vzn/vx/mcpserver",
		"github.com/vzn/vx/daemon/tools",
		"github.com/coder/websocket",
		"github.com/fsnotify/fsnotify",
	}
	vx := goList(t, "../../cmd/vx")
	if !vx["github.com/vzn/vx/cli/vx"] || !vx["github.com/vzn/vx/client/shim"] {
		t.Fatalf("go list -deps ./cmd/vx lacks cli/vx or client/shim: %v", vx)
	}
	for _, p := range daemonOnly {
		if vx[p] {
			t.Errorf("cmd/vx links %s, which only vxd uses", p)
		}
	}
	vxd := goList(t, "../../cmd/vxd")
	for _, p := range daemonOnly {
		if !vxd[p] {
			t.Errorf("cmd/vxd does not link %s (the rule above would hold vacuously)", p)
		}
	}
}
