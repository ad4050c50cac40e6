package platformpush

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

func TestResolve(t *testing.T) {
	cfg := &workspace.PlatformConfig{URL: "https://vx.example.com/", Workspace: "web"}
	tok := EnvToken + "=vxc_secret"
	for _, tc := range []struct {
		name    string
		cfg     *workspace.PlatformConfig
		env     []string
		ok      bool
		url, ws string
		err     string
	}{
		{name: "not opted in", env: []string{tok}},
		{name: "config", cfg: cfg, env: []string{tok}, ok: true, url: "https://vx.example.com", ws: "web"},
		{name: "environment overrides", cfg: cfg, env: []string{tok, EnvURL + "=http://127.0.0.1:7070", EnvWorkspace + "=api"}, ok: true, url: "http://127.0.0.1:7070", ws: "api"},
		{name: "environment only", env: []string{tok, EnvURL + "=http://h:1", EnvWorkspace + "=w"}, ok: true, url: "http://h:1", ws: "w"},
		{name: "no token", cfg: cfg, ok: true, err: EnvToken + " is not set"},
		{name: "no url", cfg: &workspace.PlatformConfig{Workspace: "web"}, env: []string{tok}, ok: true, err: "no platform URL"},
		{name: "bad url", cfg: &workspace.PlatformConfig{URL: "vx.example.com", Workspace: "web"}, env: []string{tok}, ok: true, err: `"vx.example.com" is not an http(s) URL`},
		{name: "no slug", cfg: &workspace.PlatformConfig{URL: "https://x"}, env: []string{tok}, ok: true, err: "no workspace slug"},
		{name: "bad slug", cfg: &workspace.PlatformConfig{URL: "https://x", Workspace: "Web App"}, env: []string{tok}, ok: true, err: `"Web App" is not a slug`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tgt, ok, err := Resolve(tc.cfg, tc.env)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "vxc_secret") {
					t.Fatal("the error shows the token")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok && (tgt.URL != tc.url || tgt.Workspace != tc.ws || tgt.token != "vxc_secret") {
				t.Fatalf("target %+v", tgt)
			}
		})
	}
}

func TestKeepIsAtomicAndOnePerRun(t *testing.T) {
	root := t.TempDir()
	for _, body := range []string{`{"a":1}`, `{"a":2}`} {
		if err := Keep(root, "abc123", []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(OutboxDir(root))
	if len(entries) != 1 || entries[0].Name() != "abc123.json" {
		t.Fatalf("outbox: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(OutboxDir(root), "abc123.json")); string(b) != `{"a":2}` {
		t.Fatalf("outbox file: %s", b)
	}
}

// Flush removes what the platform stored or refused as a document, and
// keeps everything from the first failure to reach it (or a refused
// token) for later.
func TestFlushKeepsWhatDidNotArrive(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		left   int
		report Report
	}{
		{"stored", 201, 0, Report{Sent: 2}},
		{"known", 200, 0, Report{Known: 2}},
		{"document refused", 400, 0, Report{Rejected: 2}},
		{"token refused", 401, 2, Report{Kept: 2}},
		{"platform failing", 503, 2, Report{Kept: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var auth []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				auth = append(auth, r.Header.Get("Authorization"))
				w.WriteHeader(tc.status)
				fmt.Fprintf(w, `{"workspaceId":"ws_1","runId":"x","created":%v,"error":"no"}`, tc.status == 201)
			}))
			defer srv.Close()
			root := t.TempDir()
			for _, id := range []string{"aaaaaa", "bbbbbb"} {
				if err := Keep(root, id, []byte(`{}`)); err != nil {
					t.Fatal(err)
				}
			}
			var warn strings.Builder
			rep, err := Flush(context.Background(), root, &Target{URL: srv.URL, Workspace: "w", token: "vxc_t"}, &warn)
			if (err != nil) != (tc.left > 0) {
				t.Fatalf("err = %v", err)
			}
			if rep != tc.report {
				t.Fatalf("report %+v, want %+v", rep, tc.report)
			}
			entries, _ := os.ReadDir(OutboxDir(root))
			if len(entries) != tc.left {
				t.Fatalf("%d runs left in the outbox, want %d", len(entries), tc.left)
			}
			if auth[0] != "Bearer vxc_t" {
				t.Fatalf("Authorization %q", auth[0])
			}
			if strings.Contains(warn.String(), "vxc_t") || (err != nil && strings.Contains(err.Error(), "vxc_t")) {
				t.Fatal("the token was printed")
			}
		})
	}
}

// A platform URL holding credentials or a query is refused, and no error
// quotes them (vx run prints the error after every run; vx push prints
// the URL it pushed to).
func TestResolveRefusesAndHidesURLSecrets(t *testing.T) {
	tok := EnvToken + "=vxc_secret"
	for _, u := range []string{
		"https://deploy:pw-sekrit@vx.example.com",
		"https://tok-sekrit@vx.example.com",
		"https://vx.example.com/?token=qs-sekrit",
		"https://vx.example.com/#frag-sekrit",
		"ftp://u:ftp-sekrit@vx.example.com",
		"https://u:parse-sekrit@[::1",
	} {
		tgt, ok, err := Resolve(&workspace.PlatformConfig{URL: u, Workspace: "web"}, []string{tok})
		if !ok || err == nil || tgt != nil {
			t.Errorf("%s: accepted (target %+v, err %v)", u, tgt, err)
			continue
		}
		if strings.Contains(err.Error(), "sekrit") {
			t.Errorf("%s: the error quotes the secret: %v", u, err)
		}
	}
}
