//go:build !windows

package platform_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// The admin routes stay in their tenant: an org's admin never lists or
// revokes another org's tokens, and an admin token pinned to a workspace
// (which sees that workspace only everywhere else) lists and revokes the
// tokens of its workspace only: not the org-wide ones, not another
// workspace's.
func TestAdminRoutesStayInTheirTenant(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	acmeAdmin, acmeAdminID := ts.p.token(t, "acme", "admin", "")
	betaAdmin, betaAdminID := ts.p.token(t, "beta", "admin", "")
	pinnedAdmin, _ := ts.p.token(t, "acme", "admin", "api")
	apiReader, apiReaderID := ts.p.token(t, "acme", "read", "api")
	webReader, webReaderID := ts.p.token(t, "acme", "read", "web")

	ids := func(tok string) map[string]string {
		t.Helper()
		r := do(t, "GET", base+"/v1/admin/tokens", tok, nil)
		if r.status != http.StatusOK {
			t.Fatalf("listing tokens: %d %s", r.status, r.body)
		}
		out := map[string]string{}
		for _, e := range r.json(t)["tokens"].([]any) {
			m := e.(map[string]any)
			ws, _ := m["workspace"].(string)
			out[m["id"].(string)] = ws
		}
		return out
	}
	if list := ids(acmeAdmin); list[betaAdminID] != "" || len(list) == 0 {
		t.Fatalf("acme's admin lists beta's tokens: %v", list)
	}
	if _, ok := ids(acmeAdmin)[betaAdminID]; ok {
		t.Fatalf("acme's admin lists beta's admin token")
	}
	for id, ws := range ids(pinnedAdmin) {
		if ws != "api" {
			t.Errorf("the admin token pinned to api lists token %s of workspace %q", id, ws)
		}
	}

	revoke := func(tok, id string) int {
		t.Helper()
		r := do(t, "POST", base+"/v1/admin/tokens/"+id+"/revoke", tok, nil)
		if strings.Contains(string(r.body), tok) {
			t.Fatalf("the answer echoes the token")
		}
		return r.status
	}
	live := func(tok string) bool {
		return do(t, "GET", base+"/v1/session", tok, nil).status == http.StatusOK
	}
	if st := revoke(acmeAdmin, betaAdminID); st == http.StatusOK || !live(betaAdmin) {
		t.Fatalf("acme's admin revoked beta's admin token (%d)", st)
	}
	if st := revoke(pinnedAdmin, acmeAdminID); st == http.StatusOK || !live(acmeAdmin) {
		t.Fatalf("the admin token pinned to api revoked the org-wide admin token (%d)", st)
	}
	if st := revoke(pinnedAdmin, webReaderID); st == http.StatusOK || !live(webReader) {
		t.Fatalf("the admin token pinned to api revoked a token of workspace web (%d)", st)
	}
	if st := revoke(pinnedAdmin, apiReaderID); st != http.StatusOK || live(apiReader) {
		t.Fatalf("the admin token pinned to api could not revoke a token of api (%d)", st)
	}
	if st := revoke(acmeAdmin, webReaderID); st != http.StatusOK || live(webReader) {
		t.Fatalf("the org-wide admin could not revoke a token of its org (%d)", st)
	}
}

// A pushed run carries components for its own tasks' keys only: never a
// key no task of it computed (components are first-writer-wins per key, so
// a foreign key would decide what why_did_rerun later says about another
// run), and so never more than its tasks.
func TestPushedComponentsAreTheRunsOwn(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	r := runsOfWeb("web")[0]
	r.RunID = "c1c1c1c1c1c1"
	r.Components[strings.Repeat("9", 32)] = comps(map[string]string{"src/a.ts": "forged"}, "echo forged", nil)
	if res := push(t, base, ts.acmeIngest, r); res.status != http.StatusBadRequest || !strings.Contains(string(res.body), "no task of the run has that key") {
		t.Fatalf("a run with components for a key none of its tasks has: %d %s", res.status, res.body)
	}
	var n int
	if err := ts.p.db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM components WHERE key = $1`, strings.Repeat("9", 32)).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the foreign key's components were stored (%d rows, %v)", n, err)
	}
}

// A run the database cannot store as sent (a NUL in a string, which
// PostgreSQL's text and jsonb refuse; a number out of its column's range) is a refusal of the document (400,
// which vx drops from its outbox), not a 503 that vx would retry forever
// while every later run waits behind it.
func TestPushWithNULIsRefusedNotRetried(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	for name, edit := range map[string]func(r *wire.PushRun){
		"task id": func(r *wire.PushRun) { r.Tasks[0].TaskID = "app#bu\x00ild" },
		"reason":  func(r *wire.PushRun) { r.Tasks[0].Reason = "exit 1: \x00" },
		"command": func(r *wire.PushRun) { r.Command = "vx run \x00" },
		"components": func(r *wire.PushRun) {
			r.Components[r.Tasks[0].Key] = comps(map[string]string{"a": "b"}, "echo \x00", nil)
		},
		"exit code": func(r *wire.PushRun) { big := 1 << 40; r.Tasks[0].ExitCode = &big },
	} {
		r := runsOfWeb("web")[0]
		r.RunID = "d0d0d0d0d0d0"
		edit(r)
		if res := push(t, base, ts.acmeIngest, r); res.status != http.StatusBadRequest {
			t.Errorf("a NUL in the %s: %d %s", name, res.status, res.body)
		}
	}
}

// No workspace slug takes the form of a workspace id: a slug equal to
// another workspace's id would shadow it wherever a workspace argument
// takes an id or a slug (every tool, the dashboard's picker).
func TestSlugCannotShadowAWorkspaceID(t *testing.T) {
	ts := seed(t)
	r := runsOfWeb(ts.acmeWeb)[0]
	r.RunID = "f0f0f0f0f0f0"
	if res := push(t, ts.p.srv.URL, ts.acmeIngest, r); res.status != http.StatusBadRequest || !strings.Contains(string(res.body), "form of a workspace id") {
		t.Fatalf("a push to slug %s (acme/web's id): %d %s", ts.acmeWeb, res.status, res.body)
	}
	got := call(t, ts.p.srv.URL, ts.acme, "list_runs", map[string]any{"workspace": ts.acmeWeb}).Struct
	if get(t, got, "workspace", "slug") != "web" {
		t.Fatalf("workspace=%s answers about %v", ts.acmeWeb, get(t, got, "workspace"))
	}
	r.Workspace = "ws_frontend"
	if res := push(t, ts.p.srv.URL, ts.acmeIngest, r); res.status != http.StatusCreated {
		t.Fatalf("an ordinary ws_ slug: %d %s", res.status, res.body)
	}
}
