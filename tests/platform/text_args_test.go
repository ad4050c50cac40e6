//go:build !windows

package platform_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/textargs"
)

// TestTextArgumentsRefused sends, to every tool the platform lists, a
// NUL, bytes that are not UTF-8 and an unpaired surrogate escape in each
// string argument: each is an argument error naming the argument and the
// rule, never PostgreSQL's raw SQLSTATE 22021 (why_did_rerun's taskId
// reached the database). The /v1 routes, which call the same tools with
// the query string as arguments, refuse the same values with 400.
func TestTextArgumentsRefused(t *testing.T) {
	ts := seed(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "text-args", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.p.srv.URL + "/mcp", HTTPClient: harness.BearerClient(ts.acme), MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := textargs.Cases(list.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < len(list.Tools)-1 { // list_workspaces takes no argument
		t.Fatalf("only %d cases for %d tools: the schemas' string arguments were not found", len(cases), len(list.Tools))
	}
	for _, tc := range cases {
		name, _ := json.Marshal(tc.Tool)
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + string(name) + `,"arguments":` + tc.Arguments + `}}`
		r := do(t, "POST", ts.p.srv.URL+"/mcp", ts.acme, []byte(body))
		var msg struct {
			Result callResult `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(r.body, &msg); err != nil {
			t.Errorf("%s: HTTP %d, not JSON-RPC: %s", tc, r.status, r.body)
			continue
		}
		isError, text := msg.Result.IsError, msg.Result.text()
		if msg.Error != nil {
			isError, text = true, msg.Error.Message
		}
		if err := textargs.Check(tc, isError, text); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%d calls over %d tools", len(cases), len(list.Tools))

	for _, path := range []string{"/v1/runs/a2a2a2a2a2a2/why?taskId=", "/v1/runs?workspace=", "/v1/runs/a2a2a2a2a2a2?workspace=", "/v1/flaky?workspace="} {
		for _, bad := range []string{"app%00%23build", "app%FF%23build"} {
			r := do(t, "GET", ts.p.srv.URL+path+bad, ts.acme, nil)
			arg := path[strings.LastIndex(path, "?")+1 : len(path)-1]
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), arg) {
				u, _ := url.PathUnescape(bad)
				t.Errorf("GET %s%s (%q): %d %s; want 400 naming %s", path, bad, u, r.status, r.body, arg)
			}
		}
	}

	// The admin routes' own arguments, too.
	admin, _ := ts.p.token(t, "acme", "admin", "")
	for _, body := range []string{`{"scope":"read","workspace":"","name":"ci\u0000"}`, "{\"scope\":\"read\",\"workspace\":\"w\xff\",\"name\":\"ci\"}"} {
		r := do(t, "POST", ts.p.srv.URL+"/v1/admin/tokens", admin, []byte(body))
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "argument") {
			t.Errorf("POST /v1/admin/tokens %q: %d %s; want 400 naming the argument", body, r.status, r.body)
		}
	}
	if r := do(t, "POST", ts.p.srv.URL+"/v1/admin/tokens/tok%00x/revoke", admin, nil); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `argument \"id\"`) {
		t.Errorf("revoking a token id with a NUL: %d %s; want 400 naming id", r.status, r.body)
	}
}
