//go:build !windows

package platform_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/tests/internal/harness"
)

// doctorPlatform runs vx doctor --format json in dir with VX_PLATFORM_TOKEN
// set to token (unset when empty) and vx on PATH, and returns its platform
// check; no token may appear in what it printed.
func doctorPlatform(t *testing.T, vx, dir, token string, secrets ...string) (doctorCheck, harness.Result) {
	t.Helper()
	env := append(harness.Env("CI", "VX_LOG", "VX_PLATFORM_URL", "VX_PLATFORM_WORKSPACE", "VX_PLATFORM_TOKEN"), "PATH="+filepath.Dir(vx)+":"+os.Getenv("PATH"))
	if token != "" {
		env = append(env, "VX_PLATFORM_TOKEN="+token)
	}
	res := harness.Run(t, dir, env, vx, "doctor", "--format", "json")
	var out struct {
		Checks []doctorCheck `json:"checks"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("vx doctor --format json: %v\n%s", err, res)
	}
	for _, s := range append(secrets, token) {
		if s != "" && strings.Contains(res.Stdout+res.Stderr, s) {
			t.Fatalf("vx doctor printed a token:\n%s", res)
		}
	}
	for _, c := range out.Checks {
		if c.Name == "platform" {
			return c, res
		}
	}
	t.Fatalf("vx doctor has no platform check:\n%s", res)
	return doctorCheck{}, res
}

type doctorCheck struct {
	Name, Status, Detail, Fix string
}

// vx doctor asks a real vx-platform whether VX_PLATFORM_TOKEN may push
// this workspace: a live ingest token is ok (exit 0 on an otherwise
// healthy workspace); an unknown, revoked, read-only or other-workspace
// token, no token, and a platform that is down are each a problem with
// its fix (exit 1); a workspace that does not push skips the check.
func TestDoctorPlatform(t *testing.T) {
	vx, bin := binaries(t)
	p := newPlatform(t)
	p.org(t, "acme")
	srv := startServe(t, bin, p.url)
	ingest, _ := p.token(t, "acme", "ingest", "")
	revoked, revokedID := p.token(t, "acme", "ingest", "")
	read, _ := p.token(t, "acme", "read", "")
	pinned, _ := p.token(t, "acme", "ingest", "other")
	if r := runCLI(t, bin, p.url, "token", "revoke", revokedID); r.Code != 0 {
		t.Fatalf("token revoke: %s", r)
	}
	dir := filepath.Join(harness.TempRoot(t), "ws")
	writeWorkspace(t, dir, srv.base)
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	all := []string{ingest, revoked, read, pinned}

	c, res := doctorPlatform(t, vx, dir, ingest, all...)
	if res.Code != 0 || c.Status != "ok" || !strings.Contains(c.Detail, srv.base) || !strings.Contains(c.Detail, "accepts the token for workspace demo") {
		t.Fatalf("a live ingest token: exit %d, %+v\n%s", res.Code, c, res)
	}

	t.Run("diagnose", func(t *testing.T) { diagnosePlatform(t, vx, dir, ingest, srv.base) })

	for _, tc := range []struct {
		name, token, detail, fix string
	}{
		{"unknown token", "vxc_0123456789abcdefghijklmnopqrstuvwxyzABCDEF", "HTTP 401", "vx-platform token create --org ORG --scope ingest"},
		{"revoked token", revoked, "unknown or revoked", "set VX_PLATFORM_TOKEN to a live ingest token"},
		{"read-only token", read, "HTTP 403", "scope ingest"},
		{"token of another workspace", pinned, `pinned to workspace "other"`, "not pinned to another workspace than demo"},
		{"no token", "", "VX_PLATFORM_TOKEN is not set", "set VX_PLATFORM_TOKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, res := doctorPlatform(t, vx, dir, tc.token, all...)
			if res.Code != 1 || c.Status != "problem" || !strings.Contains(c.Detail, tc.detail) || !strings.Contains(c.Fix, tc.fix) {
				t.Fatalf("exit %d, %+v\n%s", res.Code, c, res)
			}
		})
	}

	srv.stop()
	c, res = doctorPlatform(t, vx, dir, ingest, all...)
	if res.Code != 1 || c.Status != "problem" || !strings.Contains(c.Detail, "not reachable") || !strings.Contains(c.Fix, srv.base+"/healthz") {
		t.Fatalf("the platform down: exit %d, %+v\n%s", res.Code, c, res)
	}

	plain := filepath.Join(harness.TempRoot(t), "plain")
	harness.WriteFile(t, filepath.Join(plain, "vx.workspace.json"), `{"projects": []}`)
	if out, err := exec.Command("git", "-C", plain, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if c, res := doctorPlatform(t, vx, plain, ingest); c.Status != "skipped" || res.Code != 0 {
		t.Fatalf("no platform configured: exit %d, %+v\n%s", res.Code, c, res)
	}
}

// diagnosePlatform calls the diagnose tool of the vxd that `vx mcp` starts
// with VX_PLATFORM_TOKEN in its environment: the same platform check,
// answered inside the daemon.
func diagnosePlatform(t *testing.T, vx, dir, token, base string) {
	env := append(harness.Env("CI", "VX_LOG", "VX_PLATFORM_URL", "VX_PLATFORM_WORKSPACE", "VX_PLATFORM_TOKEN"), "VX_PLATFORM_TOKEN="+token)
	cmd := exec.Command(vx, "mcp")
	cmd.Dir, cmd.Env = dir, env
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "doctor-test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("vx mcp: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		harness.Run(t, dir, env, filepath.Join(filepath.Dir(vx), "vxd"), "stop")
	})
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "diagnose", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("diagnose: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Checks []doctorCheck `json:"checks"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), token) {
		t.Fatal("diagnose shows the token")
	}
	got := map[string]doctorCheck{}
	for _, c := range out.Checks {
		got[c.Name] = c
	}
	if c := got["platform"]; c.Status != "ok" || !strings.Contains(c.Detail, base) {
		t.Errorf("diagnose's platform check: %+v\n%s", c, b)
	}
	if c := got["remote cache"]; c.Status != "skipped" {
		t.Errorf("diagnose's remote cache check: %+v", c)
	}
}
