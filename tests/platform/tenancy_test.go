//go:build !windows

package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
)

var allTools = []struct {
	name string
	args map[string]any
}{
	{"list_workspaces", nil},
	{"list_runs", nil},
	{"get_run", map[string]any{"runId": "a1a1a1a1a1a1"}},
	{"run_trends", nil},
	{"cache_stats", nil},
	{"why_did_rerun", map[string]any{"runId": "a1a1a1a1a1a1", "taskId": "app#build"}},
	{"compare_runs", map[string]any{"runId": "a2a2a2a2a2a2"}},
}

func with(args map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for a, b := range args {
		out[a] = b
	}
	return out
}

// Two orgs, each with a workspace named web: no tool, with no workspace
// argument, its own, or the other org's, ever shows the other's data.
func TestOrgsNeverSeeEachOther(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	type side struct {
		org, token, ownWS, otherWS string
		foreign                    []string // strings that belong to the other org
	}
	sides := []side{
		{"acme", ts.acme, ts.acmeWeb, ts.betaWeb, []string{ts.betaWeb, ts.betaRun, "beta"}},
		{"beta", ts.beta, ts.betaWeb, ts.acmeWeb, []string{ts.acmeWeb, ts.acmeAPI, "a2a2a2a2a2a2", ts.acmeAPIRun, "acme"}},
	}
	for _, s := range sides {
		for _, tool := range allTools {
			for _, mode := range []string{"default", "explicit", "other org's"} {
				t.Run(s.org+"/"+tool.name+"/"+mode, func(t *testing.T) {
					args := tool.args
					switch mode {
					case "explicit":
						args = with(args, "workspace", s.ownWS)
					case "other org's":
						args = with(args, "workspace", s.otherWS)
					}
					res := call(t, base, s.token, tool.name, args)
					text := res.text()
					sent, _ := json.Marshal(args)
					for _, f := range s.foreign {
						// What the caller sent may be echoed; nothing else of the other org.
						if strings.Contains(text, f) && !strings.Contains(string(sent), f) {
							t.Fatalf("%s's answer carries %q of the other org: %s", s.org, f, text)
						}
					}
					if mode == "other org's" {
						if !res.IsError || text != `argument "workspace": unknown workspace "`+s.otherWS+`"; list_workspaces lists the workspaces` {
							t.Fatalf("another org's workspace must be only unknown: %+v", res)
						}
						return
					}
					if res.IsError {
						t.Fatalf("unexpected refusal: %s", text)
					}
					if ws, ok := res.Struct["workspace"].(map[string]any); ok && ws["id"] != s.ownWS {
						t.Fatalf("answer is about workspace %v, want %s", ws["id"], s.ownWS)
					}
				})
			}
		}
	}
	// The same over the routes.
	for _, path := range []string{"/v1/workspaces", "/v1/runs", "/v1/runs/b1b1b1b1b1b1", "/v1/trends", "/v1/cache", "/v1/runs/b1b1b1b1b1b1/compare"} {
		r := do(t, "GET", base+path, ts.acme, nil)
		if strings.Contains(string(r.body), ts.betaWeb) || strings.Contains(string(r.body), `"found":true`) && strings.Contains(path, "b1b1") {
			t.Fatalf("GET %s as acme shows beta's data: %s", path, r.body)
		}
	}
	if r := do(t, "GET", base+"/v1/runs?workspace="+ts.betaWeb, ts.acme, nil); r.status != 400 || !strings.Contains(r.json(t)["error"].(string), "unknown workspace") {
		t.Fatalf("GET another org's workspace: %d %s", r.status, r.body)
	}
}

func TestWorkspacePinnedToken(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	pinned, _ := ts.p.token(t, "acme", "read", "api")
	ws := call(t, base, pinned, "list_workspaces", nil).Struct
	if list := get(t, ws, "workspaces").([]any); len(list) != 1 || get(t, list, 0, "slug") != "api" {
		t.Fatalf("a pinned token lists its workspace only: %v", ws)
	}
	for _, arg := range []any{nil, ts.acmeWeb, "web", ts.betaWeb, "nope"} {
		args := map[string]any{}
		if arg != nil {
			args["workspace"] = arg
		}
		res := call(t, base, pinned, "list_runs", args)
		if res.IsError || get(t, res.Struct, "workspace", "slug") != "api" || get(t, res.Struct, "workspace", "pinned") != true {
			t.Fatalf("workspace=%v with a pinned token: %+v", arg, res)
		}
		if runs := get(t, res.Struct, "runs").([]any); len(runs) != 1 || get(t, runs, 0, "runId") != ts.acmeAPIRun {
			t.Fatalf("pinned token sees api's runs only: %v", runs)
		}
	}
	pinnedIngest, _ := ts.p.token(t, "acme", "ingest", "api")
	r := runsOfWeb("web")[0]
	r.RunID = "c0c0c0c0c0c0"
	if res := push(t, base, pinnedIngest, r); res.status != http.StatusForbidden {
		t.Fatalf("pinned ingest token pushing to another workspace: %d %s", res.status, res.body)
	}
}

func TestAuthRefusals(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	init := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	revoked, revokedID := ts.p.token(t, "acme", "read", "")
	if err := tokens.Revoke(context.Background(), ts.p.db.Pool, revokedID, 0); err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"none": "", "malformed": "hello", "unknown": "vxc_" + strings.Repeat("A", 43), "revoked": revoked} {
		for _, route := range []struct{ method, path string }{{"POST", "/mcp"}, {"GET", "/v1/runs"}, {"POST", "/v1/runs"}} {
			r := do(t, route.method, base+route.path, tok, init)
			if r.status != http.StatusUnauthorized || !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s token on %s %s: %d %q", name, route.method, route.path, r.status, r.header.Get("WWW-Authenticate"))
			}
			if tok != "" && strings.Contains(string(r.body), tok) {
				t.Errorf("the answer echoes the token")
			}
		}
	}
	if r := do(t, "POST", base+"/mcp", ts.acmeIngest, init); r.status != http.StatusForbidden || !strings.Contains(r.json(t)["error"].(string), "scope read") {
		t.Fatalf("ingest token on /mcp: %d %s", r.status, r.body)
	}
	if r := do(t, "GET", base+"/v1/runs", ts.acmeIngest, nil); r.status != http.StatusForbidden || !strings.Contains(r.json(t)["error"].(string), "scope read") {
		t.Fatalf("ingest token on GET /v1/runs: %d %s", r.status, r.body)
	}
	if r := push(t, base, ts.acme, runsOfWeb("web")[0]); r.status != http.StatusForbidden || !strings.Contains(r.json(t)["error"].(string), "scope ingest") {
		t.Fatalf("read token on ingest: %d %s", r.status, r.body)
	}
}

func TestMCPEnvelope(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	r := do(t, "POST", base+"/mcp", ts.acme, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	if r.status != 200 || get(t, r.json(t), "result", "protocolVersion") != "2025-03-26" || r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize: %d %v %s", r.status, r.header, r.body)
	}
	r = do(t, "POST", base+"/mcp", ts.acme, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	var list struct {
		Result struct{ Tools []struct{ Name string } } `json:"result"`
	}
	_ = json.Unmarshal(r.body, &list)
	var names []string
	for _, tl := range list.Result.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "list_workspaces,list_runs,get_run,run_trends,cache_stats,why_did_rerun,compare_runs" {
		t.Fatalf("tools/list: %v", names)
	}
	// A batch is answered as one array; notifications get no entry.
	r = do(t, "POST", base+"/mcp", ts.acme, []byte(`[{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"list_runs","arguments":{"limit":1}}},
		{"jsonrpc":"2.0","id":"b","method":"ping"}]`))
	var batch []map[string]any
	if err := json.Unmarshal(r.body, &batch); err != nil || len(batch) != 2 {
		t.Fatalf("batch: %d %s", r.status, r.body)
	}
	// Only notifications: 202, no body.
	r = do(t, "POST", base+"/mcp", ts.acme, []byte(`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]`))
	if r.status != http.StatusAccepted || len(r.body) != 0 {
		t.Fatalf("notifications only: %d %q", r.status, r.body)
	}
	r = do(t, "POST", base+"/mcp", ts.acme, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if r.status != http.StatusAccepted || len(r.body) != 0 {
		t.Fatalf("one notification: %d %q", r.status, r.body)
	}
	if r = do(t, "GET", base+"/mcp", ts.acme, nil); r.status != http.StatusMethodNotAllowed {
		t.Fatalf("GET /mcp: %d", r.status)
	}
}

// Revocation is seen at once by another replica; both replicas serve
// the same answers from the one database.
func TestReplicasShareTheDatabase(t *testing.T) {
	ts := seed(t)
	other := replica(t, ts.p.url)
	a := call(t, ts.p.srv.URL, ts.acme, "list_runs", nil).text()
	b := call(t, other.URL, ts.acme, "list_runs", nil).text()
	if a != b {
		t.Fatalf("replicas differ:\n%s\n%s", a, b)
	}
	// A run pushed to one is read from the other.
	r := runsOfWeb("web")[1]
	r.RunID, r.StartedAt = "d0d0d0d0d0d0", T0.Add(90*60e9)
	if res := push(t, other.URL, ts.acmeIngest, r); res.status != http.StatusCreated {
		t.Fatalf("push to replica 2: %d %s", res.status, res.body)
	}
	if got := call(t, ts.p.srv.URL, ts.acme, "list_runs", map[string]any{"limit": 1}).Struct; get(t, got, "runs", 0, "runId") != "d0d0d0d0d0d0" {
		t.Fatalf("replica 1 does not see replica 2's push: %v", got)
	}
	tok, id := ts.p.token(t, "acme", "read", "")
	call(t, other.URL, tok, "list_workspaces", nil) // warm: the token worked there
	if err := tokens.Revoke(context.Background(), ts.p.db.Pool, id, 0); err != nil {
		t.Fatal(err)
	}
	if r := do(t, "GET", other.URL+"/v1/workspaces", tok, nil); r.status != http.StatusUnauthorized {
		t.Fatalf("replica 2 after revocation: %d %s", r.status, r.body)
	}
}

func TestPushIsIdempotent(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	r := runsOfWeb("web")[1]
	res := push(t, base, ts.acmeIngest, r)
	if res.status != http.StatusOK || res.json(t)["created"] != false {
		t.Fatalf("second push of a2: %d %s", res.status, res.body)
	}
	var runs, execs, count int
	_ = ts.p.db.Pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM runs WHERE workspace_id = $1), (SELECT count(*) FROM executions WHERE workspace_id = $1),
		(SELECT run_count FROM workspaces WHERE id = $1)`, ts.acmeWeb).Scan(&runs, &execs, &count)
	if runs != 2 || execs != 6 || count != 2 {
		t.Fatalf("after a re-push: %d runs, %d executions, run_count %d; want 2, 6, 2", runs, execs, count)
	}
	bad := *r
	bad.RunID = "NOT-HEX"
	if res := push(t, base, ts.acmeIngest, &bad); res.status != 400 || !strings.Contains(res.json(t)["error"].(string), "runId") {
		t.Fatalf("bad run id: %d %s", res.status, res.body)
	}
	bad = *r
	bad.RunID, bad.Tasks = "e0e0e0e0e0e0", []wire.PushTask{task("x#y", "great", "miss", "", k1, 1, nil)}
	if res := push(t, base, ts.acmeIngest, &bad); res.status != 400 || !strings.Contains(res.json(t)["error"].(string), "great") {
		t.Fatalf("bad status: %d %s", res.status, res.body)
	}
}

// First pushes racing to create one workspace: one workspace, every run.
func TestConcurrentFirstPushes(t *testing.T) {
	p := newPlatform(t)
	p.org(t, "acme")
	tok, _ := p.token(t, "acme", "ingest", "")
	const n = 8
	errs := make(chan string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Go(func() {
			r := runsOfWeb("fresh")[0]
			r.RunID = fmt.Sprintf("f0f0f0f0f0%02x", i)
			b, _ := json.Marshal(r)
			req, _ := http.NewRequest("POST", p.srv.URL+wire.PlatformRunsPath, bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated || !strings.Contains(string(body), `"workspaceId":"ws_`) {
				errs <- fmt.Sprintf("%d %s", resp.StatusCode, body)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	var ws, runs, count int
	_ = p.db.Pool.QueryRow(context.Background(), `SELECT count(*), max(run_count), (SELECT count(*) FROM runs) FROM workspaces`).Scan(&ws, &count, &runs)
	if ws != 1 || runs != n || count != n {
		t.Fatalf("%d workspaces, %d runs, run_count %d; want 1, %d, %d", ws, runs, count, n, n)
	}
}

// POST /v1/runs/known answers for the caller's org only.
func TestKnownRunsAreTheOrgsOwn(t *testing.T) {
	ts := seed(t)
	ask := func(tok, ws string, ids ...string) response {
		b, _ := json.Marshal(wire.KnownRequest{Workspace: ws, RunIDs: ids})
		return do(t, "POST", ts.p.srv.URL+wire.PlatformKnownPath, tok, b)
	}
	if r := ask(ts.acmeIngest, "web", "a1a1a1a1a1a1", "a2a2a2a2a2a2", "b1b1b1b1b1b1", "ffffffffffff"); r.status != 200 || !strings.Contains(string(r.body), `"known":["a1a1a1a1a1a1","a2a2a2a2a2a2"]`) {
		t.Fatalf("acme asking about web: %d %s", r.status, r.body)
	}
	betaIngest, _ := ts.p.token(t, "beta", "ingest", "")
	if r := ask(betaIngest, "web", "a1a1a1a1a1a1", "a2a2a2a2a2a2", "b1b1b1b1b1b1"); r.status != 200 || !strings.Contains(string(r.body), `"known":["b1b1b1b1b1b1"]`) {
		t.Fatalf("beta asking about acme's run ids: %d %s", r.status, r.body)
	}
	if r := ask(ts.acme, "web", "a1a1a1a1a1a1"); r.status != http.StatusForbidden {
		t.Fatalf("a read token on the ingest side: %d", r.status)
	}
}
