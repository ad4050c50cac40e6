package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/pprof"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/tools"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/httpapi"
	"github.com/vzn/vx/mcpserver"
)

// profileTool serves vxd's MCP stack (the same packages vxd wires: the
// tool catalog over mcpserver behind httpapi's handler) in this process on
// an existing workspace, calls one tool n times over loopback HTTP as the
// benchmark does, and writes a CPU profile: vxd itself offers no profile
// over HTTP. The profile holds the client too; focus on the server with
// `go tool pprof -focus 'mcpserver|ops|history|httpapi' FILE`.
//
//	go run ./scripts/daemonbench -profile-root WS -profile-tool getRunHistory -profile-args '{"limit":50}' -cpuprofile cpu.pprof
func profileTool(root, tool, argsJSON, out string, n int) error {
	var args map[string]any
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		return fmt.Errorf("-profile-args: %w", err)
	}
	m, loadErr := workspace.Load(root)
	env := ops.NewEnv(root, m, loadErr, nil)
	defer env.Close()
	srv := mcpserver.New(&mcpserver.Options{Name: "vx", Version: "profile", Mask: env.Masker.String, MaskJSON: env.Masker.JSON, MaxSessions: 64})
	defer srv.Close()
	srv.SetTools(tools.Catalog(env, tools.Config{}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go http.Serve(ln, httpapi.NewMCPHandler(srv, nil))
	c := newMCPClient(fmt.Sprintf("http://%s/mcp", ln.Addr()), "")
	if err := c.initialize(); err != nil {
		return err
	}
	for i := 0; i < 10; i++ {
		if _, _, _, err := c.tool(tool, args); err != nil {
			return err
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	var s samples
	size := 0
	for i := 0; i < n; i++ {
		_, d, sz, err := c.tool(tool, args)
		if err != nil {
			pprof.StopCPUProfile()
			return err
		}
		s.add(d)
		size = sz
	}
	pprof.StopCPUProfile()
	fmt.Printf("%s %s in-process: n=%d p50 %s p99 %s, %d B answer; CPU profile in %s\n", tool, argsJSON, n, ms(s.pct(50)), ms(s.pct(99)), size, out)
	return nil
}
