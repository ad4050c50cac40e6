package platformpush

import (
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
