//go:build !windows

package live_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
)

// smallWorkspace is a one-project workspace whose vx.workspace.json is
// config (the daemon is stopped at the end).
func smallWorkspace(t *testing.T, config string) string {
	t.Helper()
	root := filepath.Join(harness.TempRoot(t), "ws")
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), config)
	harness.WriteFile(t, filepath.Join(root, "apps/web/package.json"), `{"name": "web", "scripts": {"build": "true"}}`)
	t.Cleanup(func() { stopDaemon(t, root) })
	return root
}

// statusPort is the port `vxd status --json` reports, after checking that
// the daemon answers there.
func statusPort(t *testing.T, root string) int {
	t.Helper()
	r := run(t, root, vxdBin, "status", "--json")
	var st wire.Status
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &st) != nil {
		t.Fatalf("vxd status --json\n%s", r)
	}
	daemonPIDs.Store(st.PID, root)
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(st.Port) + "/mcp")
	if err != nil {
		t.Fatalf("nothing answers on the port vxd status names (%d): %v", st.Port, err)
	}
	resp.Body.Close()
	return st.Port
}

// TestChosenPort: vxd listens on the port --port or daemon.port names, on
// 127.0.0.1; a port another process holds is refused with an error naming
// the port and that process, from serve and from start alike.
func TestChosenPort(t *testing.T) {
	root := smallWorkspace(t, `{"projects": ["apps/*"]}`)

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	held := busy.Addr().(*net.TCPAddr).Port
	for _, verb := range []string{"serve", "start"} {
		r := run(t, root, vxdBin, verb, "--port", strconv.Itoa(held))
		if r.Code == 0 || !strings.Contains(r.Stderr, fmt.Sprintf("port %d of 127.0.0.1 is already in use by another process", held)) {
			t.Errorf("vxd %s --port %d (held by this test): want a refusal naming the port and another process\n%s", verb, held, r)
		}
	}
	// This suite reads /proc (harness.Alive): Linux, where the holder is
	// named.
	if r := run(t, root, vxdBin, "serve", "--port", strconv.Itoa(held)); !strings.Contains(r.Stderr, fmt.Sprintf("(pid %d, ", os.Getpid())) {
		t.Errorf("the refusal does not name the holder, this test's process (pid %d)\n%s", os.Getpid(), r)
	}

	port := harness.FreePort(t)
	if r := run(t, root, vxdBin, "start", "--port", strconv.Itoa(port)); r.Code != 0 || !strings.Contains(r.Stdout, fmt.Sprintf("127.0.0.1:%d/mcp", port)) {
		t.Fatalf("vxd start --port %d\n%s", port, r)
	}
	if got := statusPort(t, root); got != port {
		t.Errorf("vxd start --port %d: the daemon listens on %d", port, got)
	}
	if r := run(t, root, vxdBin, "start"); r.Code != 0 {
		t.Errorf("vxd start (no --port) with a daemon running: want its address\n%s", r)
	}
	other := harness.FreePort(t)
	if r := run(t, root, vxdBin, "start", "--port", strconv.Itoa(other)); r.Code == 0 || !strings.Contains(r.Stderr, fmt.Sprintf("port %d, not %d", port, other)) {
		t.Errorf("vxd start --port %d with one on %d: want a refusal naming both\n%s", other, port, r)
	}
	stopDaemon(t, root)

	configured := harness.FreePort(t)
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), fmt.Sprintf(`{"projects": ["apps/*"], "daemon": {"port": %d}}`, configured))
	if r := run(t, root, vxdBin, "start"); r.Code != 0 {
		t.Fatalf("vxd start with daemon.port %d\n%s", configured, r)
	}
	if got := statusPort(t, root); got != configured {
		t.Errorf("daemon.port %d: the daemon listens on %d", configured, got)
	}
}

// TestPortRefusals: --port and daemon.port take a port or 0, nothing else.
func TestPortRefusals(t *testing.T) {
	root := smallWorkspace(t, `{"projects": ["apps/*"]}`)
	for _, v := range []string{"-1", "65536", "http", "4170x"} {
		for _, verb := range []string{"serve", "start"} {
			r := run(t, root, vxdBin, verb, "--port", v)
			if r.Code != 2 || !strings.Contains(r.Stderr, fmt.Sprintf("--port %q is not a port", v)) {
				t.Errorf("vxd %s --port %s: want exit 2 naming the value\n%s", verb, v, r)
			}
		}
	}
	harness.WriteFile(t, filepath.Join(root, "vx.workspace.json"), `{"projects": ["apps/*"], "daemon": {"port": 70000}}`)
	if r := run(t, root, vxBin, "show"); r.Code == 0 || !strings.Contains(r.Stderr, "daemon.port: 70000 is not a port") {
		t.Errorf("daemon.port 70000: want the configuration refused naming it\n%s", r)
	}
}
