//go:build !windows

package platform_test

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/pgtest"
)

// vxdTool calls one tool of the workspace's vxd (started by vxd start) in
// a stateless request, and returns its structured answer.
func vxdTool(t *testing.T, vxd, ws, tool string, args map[string]any) map[string]any {
	t.Helper()
	r := harness.Run(t, ws, harness.Env("VXD_IDLE_TIMEOUT"), vxd, "status", "--json")
	var st wire.Status
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &st) != nil {
		t.Fatalf("vxd status --json: %s", r)
	}
	tok := harness.Run(t, ws, harness.Env(), vxd, "token")
	body := statelessReq("tools/call", "2026-07-28", map[string]any{"name": tool, "arguments": args})
	res := do(t, "POST", fmt.Sprintf("http://127.0.0.1:%d/mcp", st.Port), strings.TrimSpace(tok.Stdout), body,
		"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool)
	a := answer(t, res)
	if a.Error != nil || a.Result["isError"] == true {
		t.Fatalf("vxd %s: %d %s", tool, res.status, res.body)
	}
	return a.Result["structuredContent"].(map[string]any)
}

// bucketSums adds executions and hits over an answer's buckets.
func bucketSums(t *testing.T, answer map[string]any) (executions, hits float64) {
	t.Helper()
	for _, b := range get(t, answer, "buckets").([]any) {
		executions += num(t, b, "executions")
		hits += num(t, b, "hits")
	}
	return executions, hits
}

// TestExecutionsCountedOneWay: the same two real runs (the second with a
// cache hit, a failure and a task it blocked) count the same executions
// and hits in vxd's runTrends, the platform's run_trends and its
// cache_stats: every task outcome the runs recorded, hits included.
func TestExecutionsCountedOneWay(t *testing.T) {
	vx, platform := binaries(t)
	vxd := filepath.Join(filepath.Dir(vx), "vxd")
	db := pgtest.URL(t)
	for _, args := range [][]string{{"migrate"}, {"org", "create", "acme"}} {
		if r := runCLI(t, platform, db, args...); r.Code != 0 {
			t.Fatal(r)
		}
	}
	mint := func(scope string) string {
		r := runCLI(t, platform, db, "token", "create", "--org", "acme", "--scope", scope, "--name", "t-"+scope)
		if r.Code != 0 {
			t.Fatal(r)
		}
		return strings.TrimSpace(r.Stdout)
	}
	ingestTok, readTok := mint("ingest"), mint("read")
	srv := startServe(t, platform, db)

	ws := harness.TempRoot(t)
	writeWorkspace(t, ws, srv.base)
	harness.WriteFile(t, filepath.Join(ws, "packages/util/package.json"), `{"name": "util", "version": "1.0.0", "scripts": {"build": "mkdir -p dist && echo u > dist/u"}}`)
	harness.WriteFile(t, filepath.Join(ws, "packages/util/src/u.js"), "export const u = 1;\n")
	if r := vxIn(t, vx, ws, ingestTok, "run", "build", "--format", "json"); r.Code != 0 {
		t.Fatal(r)
	}
	// core fails: app#build is blocked, util#build is a hit.
	harness.WriteFile(t, filepath.Join(ws, "packages/core/package.json"), `{"name": "core", "version": "1.0.0", "scripts": {"build": "exit 1"}}`)
	r := vxIn(t, vx, ws, ingestTok, "run", "build", "--continue", "--format", "json")
	var sum wire.RunSummary
	if r.Code != 1 || json.Unmarshal([]byte(r.Stdout), &sum) != nil {
		t.Fatalf("second run: want exit 1 and a summary\n%s", r)
	}
	statuses := map[string]string{}
	for _, x := range sum.Tasks {
		statuses[x.TaskID] = x.Status + "/" + x.Cache
	}
	if statuses["util#build"] != "passed/hit" || statuses["core#build"] != "failed/miss" || statuses["app#build"] != "blocked/miss" {
		t.Fatalf("second run's tasks: %v; want util a hit, core failed, app blocked", statuses)
	}
	const wantExec, wantHits = 6, 1 // 3 task outcomes a run, one hit

	if r := harness.Run(t, ws, harness.Env("VXD_IDLE_TIMEOUT"), vxd, "start"); r.Code != 0 {
		t.Fatal(r)
	}
	t.Cleanup(func() { harness.Run(t, ws, harness.Env(), vxd, "stop") })
	localExec, localHits := bucketSums(t, vxdTool(t, vxd, ws, "runTrends", map[string]any{"bucket": "day"}))
	teamExec, teamHits := bucketSums(t, call(t, srv.base, readTok, "run_trends", map[string]any{"bucket": "day"}).Struct)
	cs := call(t, srv.base, readTok, "cache_stats", nil).Struct
	local := vxdTool(t, vxd, ws, "getCacheStats", map[string]any{})
	for _, c := range []struct {
		name        string
		execs, hits float64
	}{
		{"vxd runTrends", localExec, localHits},
		{"vxd getCacheStats (24h)", num(t, local, "executions24h"), num(t, local, "hits24h")},
		{"platform run_trends", teamExec, teamHits},
		{"platform cache_stats (24h)", num(t, cs, "executions24h"), num(t, cs, "hits24h")},
	} {
		if c.execs != wantExec || c.hits != wantHits {
			t.Errorf("%s counts %v executions and %v hits; want %d and %d, as every other count", c.name, c.execs, c.hits, wantExec, wantHits)
		}
	}
	if rate := num(t, cs, "hitRate24h"); math.Abs(rate-num(t, local, "hitRate24h")) > 0.0005 { // vxd rounds to 3 places
		t.Errorf("hit rates differ: platform %v, vxd %v", rate, num(t, local, "hitRate24h"))
	}
}
