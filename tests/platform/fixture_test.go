//go:build !windows

package platform_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/platform/api"
	"github.com/vzn/vx/platform/store"
	"github.com/vzn/vx/platform/tokens"
	"github.com/vzn/vx/protocol/wire"
	"github.com/vzn/vx/tests/internal/pgtest"
)

// platform is one database and a replica (an in-process server with its
// own pool) over it.
type platform struct {
	url string // the database
	db  *store.DB
	srv *httptest.Server
}

func newPlatform(t *testing.T) *platform {
	t.Helper()
	p := &platform{url: pgtest.URL(t)}
	p.db = openAt(t, p.url)
	p.srv = replica(t, p.url)
	return p
}

func openAt(t *testing.T, url string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// replica is another server over the same database, sharing nothing
// with the others but the database.
func replica(t *testing.T, url string) *httptest.Server {
	db := openAt(t, url)
	srv := httptest.NewServer(api.New(db.Pool, &api.Options{Version: "test"}))
	t.Cleanup(srv.Close)
	return srv
}

func (p *platform) org(t *testing.T, name string) {
	t.Helper()
	if err := tokens.CreateOrg(context.Background(), p.db.Pool, name); err != nil {
		t.Fatal(err)
	}
}

func (p *platform) token(t *testing.T, org, scope, workspace string) (string, string) {
	t.Helper()
	tok, secret, err := tokens.Create(context.Background(), p.db.Pool, tokens.CreateInput{Org: org, Scope: scope, Workspace: workspace, Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return secret, tok.ID
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("answer is not a JSON object (%d): %s", r.status, r.body)
	}
	return m
}

func do(t *testing.T, method, url, token string, body []byte, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return response{resp.StatusCode, resp.Header, b}
}

func push(t *testing.T, base, token string, run *wire.PushRun) response {
	t.Helper()
	b, _ := json.Marshal(run)
	return do(t, "POST", base+wire.PlatformRunsPath, token, b)
}

// callResult is a tools/call answer.
type callResult struct {
	IsError bool                    `json:"isError"`
	Content []struct{ Text string } `json:"content"`
	Struct  map[string]any          `json:"structuredContent"`
}

func (c callResult) text() string {
	if len(c.Content) == 0 {
		return ""
	}
	return c.Content[0].Text
}

// call sends one tools/call and returns its result (failing on a JSON-RPC
// error).
func call(t *testing.T, base, token, tool string, args map[string]any) callResult {
	t.Helper()
	res, rpcErr := callRaw(t, base, token, tool, args)
	if rpcErr != nil {
		t.Fatalf("%s: JSON-RPC error %v", tool, rpcErr)
	}
	return res
}

func callRaw(t *testing.T, base, token, tool string, args any) (callResult, map[string]any) {
	t.Helper()
	if m, ok := args.(map[string]any); ok && m == nil {
		args = map[string]any{}
	}
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}}
	b, _ := json.Marshal(req)
	r := do(t, "POST", base+"/mcp", token, b)
	if r.status != http.StatusOK {
		t.Fatalf("%s: HTTP %d: %s", tool, r.status, r.body)
	}
	var msg struct {
		Result callResult     `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(r.body, &msg); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, r.body)
	}
	return msg.Result, msg.Error
}

// T0 is a fixed point a few hours ago, ten minutes into an hour (UTC), so
// that runs an hour apart fall into distinct hour buckets within 24h.
var T0 = time.Now().UTC().Truncate(time.Hour).Add(-3*time.Hour + 10*time.Minute)

func ptr[T any](v T) *T { return &v }

func task(id, status, cache, source, key string, ms int64, exit *int) wire.PushTask {
	project, name, _ := strings.Cut(id, "#")
	return wire.PushTask{TaskRow: wire.TaskRow{TaskID: id, Project: project, Task: name, Status: status, Cache: cache, CacheSource: source,
		Key: key, DurationMs: ms, ExitCode: exit}}
}

func comps(files map[string]string, command string, deps map[string]string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"runner": "vx-key/1", "global": map[string]string{}, "definition": map[string]string{"command": command},
		"env": map[string]string{}, "files": files, "deps": deps})
	return b
}

// Keys of the fixture (hex, as vx's).
const (
	k1 = "11111111111111111111111111111111"
	k2 = "22222222222222222222222222222222"
	k3 = "33333333333333333333333333333333"
	k4 = "44444444444444444444444444444444"
	k5 = "55555555555555555555555555555555"
)

// runsOfWeb is acme/web's history: r1, then r2 an hour later.
func runsOfWeb(slug string) []*wire.PushRun {
	zero, one := 0, 1
	r1 := &wire.PushRun{Workspace: slug, RunID: "a1a1a1a1a1a1", Command: "vx run build test", GitBranch: "main", GitCommit: "c1",
		StartedAt: T0, EndedAt: ptr(T0.Add(2 * time.Second)), ExitCode: &zero, Status: "passed", DurationMs: 2000,
		Totals: wire.RunTotals{Tasks: 3, Passed: 3, Cached: 1},
		Tasks: []wire.PushTask{
			task("app#build", "passed", "miss", "", k1, 100, &zero),
			task("app#test", "passed", "miss", "", k2, 50, &zero),
			task("lib#build", "passed", "hit", "local", k3, 5, &zero),
		},
		Components: map[string]json.RawMessage{
			k1: comps(map[string]string{"src/a.ts": "h1"}, "tsc", map[string]string{"lib#build": k3}),
			k3: comps(map[string]string{"src/lib.ts": "h9"}, "tsc", map[string]string{}),
		}}
	r1.Tasks[0].EntryBytes, r1.Tasks[1].EntryBytes = ptr(int64(1000)), ptr(int64(200))
	// lib#build, then app#build, then app#test, one after the other.
	r1.Tasks[2].StartedAt, r1.Tasks[0].StartedAt, r1.Tasks[1].StartedAt = ptr(T0), ptr(T0.Add(5*time.Millisecond)), ptr(T0.Add(105*time.Millisecond))
	t1 := T0.Add(time.Hour)
	r2 := &wire.PushRun{Workspace: slug, RunID: "a2a2a2a2a2a2", Command: "vx run build test", GitBranch: "feature", GitCommit: "c2", CI: true,
		StartedAt: t1, EndedAt: ptr(t1.Add(3 * time.Second)), ExitCode: &one, Status: "failed", DurationMs: 3000,
		Totals: wire.RunTotals{Tasks: 3, Passed: 2, Cached: 1, Failed: 1},
		Tasks: []wire.PushTask{
			task("app#build", "passed", "miss", "", k4, 120, &zero),
			task("app#test", "passed", "hit", "remote", k2, 3, &zero),
			task("lib#build", "failed", "miss", "", k5, 7, &one),
		},
		Components: map[string]json.RawMessage{
			k4: comps(map[string]string{"src/a.ts": "h2", "src/b.ts": "h3"}, "tsc -b", map[string]string{"lib#build": k5}),
			k5: comps(map[string]string{"src/lib.ts": "h8"}, "tsc", map[string]string{}),
		}}
	r2.Tasks[2].Reason = "exit 1"
	return []*wire.PushRun{r1, r2}
}

// tenants seeds two orgs: acme (workspaces web, newest, and api) and beta
// (a workspace also named web, with its own runs).
type tenants struct {
	p                   *platform
	acme, beta          string // read tokens
	acmeIngest          string
	acmeWeb, acmeAPI    string // workspace ids
	betaWeb             string
	betaRun, acmeAPIRun string
}

func seed(t *testing.T) *tenants {
	t.Helper()
	p := newPlatform(t)
	p.org(t, "acme")
	p.org(t, "beta")
	ts := &tenants{p: p}
	ts.acme, _ = p.token(t, "acme", "read", "")
	ts.beta, _ = p.token(t, "beta", "read", "")
	ts.acmeIngest, _ = p.token(t, "acme", "ingest", "")
	betaIngest, _ := p.token(t, "beta", "ingest", "")
	zero := 0
	api := &wire.PushRun{Workspace: "api", RunID: "ab00ab00ab00", Command: "vx run lint", StartedAt: T0.Add(30 * time.Minute), Status: "passed", ExitCode: &zero,
		Totals: wire.RunTotals{Tasks: 1, Passed: 1}, Tasks: []wire.PushTask{task("api#lint", "passed", "miss", "", k1, 10, &zero)}}
	ts.acmeAPIRun = api.RunID
	for _, r := range append(runsOfWeb("web"), api) {
		if res := push(t, p.srv.URL, ts.acmeIngest, r); res.status != http.StatusCreated {
			t.Fatalf("push %s: %d %s", r.RunID, res.status, res.body)
		}
	}
	b := runsOfWeb("web")[0]
	b.RunID, b.StartedAt = "b1b1b1b1b1b1", T0.Add(2*time.Hour)
	ts.betaRun = b.RunID
	if res := push(t, p.srv.URL, betaIngest, b); res.status != http.StatusCreated {
		t.Fatalf("push beta: %d %s", res.status, res.body)
	}
	ids := map[string]string{}
	for _, org := range []string{"acme", "beta"} {
		rows, _ := p.db.Pool.Query(context.Background(), `SELECT w.slug, w.id FROM workspaces w JOIN orgs o ON o.id = w.org_id WHERE o.name = $1`, org)
		for rows.Next() {
			var slug, id string
			_ = rows.Scan(&slug, &id)
			ids[org+"/"+slug] = id
		}
		rows.Close()
	}
	ts.acmeWeb, ts.acmeAPI, ts.betaWeb = ids["acme/web"], ids["acme/api"], ids["beta/web"]
	if ts.acmeWeb == "" || ts.acmeAPI == "" || ts.betaWeb == "" {
		t.Fatalf("workspaces not created on first push: %v", ids)
	}
	return ts
}
