package remotecache_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

type doctorCheck struct {
	Name, Status, Detail, Fix string
}

// doctorRemote runs vx doctor --format json and returns its remote cache
// check, failing if any token appears in what it printed.
func doctorRemote(t *testing.T, ws string, e []string, tokens ...string) (doctorCheck, harness.Result) {
	t.Helper()
	res := vx(t, ws, e, "doctor", "--format", "json")
	var out struct {
		OK     bool          `json:"ok"`
		Checks []doctorCheck `json:"checks"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("vx doctor --format json: %v\n%s", err, res)
	}
	for _, tok := range tokens {
		if strings.Contains(res.Stdout+res.Stderr, tok) {
			t.Fatalf("vx doctor printed the token %q:\n%s", tok, res)
		}
	}
	for _, c := range out.Checks {
		if c.Name == "remote cache" {
			return c, res
		}
	}
	t.Fatalf("vx doctor has no remote cache check:\n%s", res)
	return doctorCheck{}, res
}

// vx doctor asks the real server, as vx cache status does: reachable,
// token accepted and caching enabled is ok (and doctor exits 0 on an
// otherwise healthy workspace); a refused or missing token and a server
// that is down are each a problem with its fix, and doctor exits 1.
func TestDoctorRemoteCache(t *testing.T) {
	srv := startServer(t)
	ws := clone(t)
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	onPath := "PATH=" + filepath.Dir(vxBin) + ":" + os.Getenv("PATH")

	c, res := doctorRemote(t, ws, env(srv, onPath), token)
	if res.Code != 0 || c.Status != "ok" || !strings.Contains(c.Detail, srv.URL) || !strings.Contains(c.Detail, "token accepted") {
		t.Fatalf("a good server: exit %d, %+v\n%s", res.Code, c, res)
	}

	c, res = doctorRemote(t, ws, env(srv, onPath, "VX_REMOTE_CACHE_TOKEN=wrong-token-123"), token, "wrong-token-123")
	if res.Code != 1 || c.Status != "problem" || !strings.Contains(c.Detail, "401") || !strings.Contains(c.Fix, "refuses the token in VX_REMOTE_CACHE_TOKEN") {
		t.Fatalf("a wrong token: exit %d, %+v\n%s", res.Code, c, res)
	}

	c, res = doctorRemote(t, ws, env(srv, onPath, "VX_REMOTE_CACHE_TOKEN="), token)
	if res.Code != 1 || c.Status != "problem" || !strings.Contains(c.Fix, "set VX_REMOTE_CACHE_TOKEN") {
		t.Fatalf("no token: exit %d, %+v\n%s", res.Code, c, res)
	}

	text := vx(t, ws, env(srv, onPath, "VX_REMOTE_CACHE_TOKEN=wrong-token-123"), "doctor")
	if text.Code != 1 || !strings.Contains(text.Stdout, "PROBLEM  remote cache") ||
		!strings.Contains(text.Stdout, "fix: the server refuses the token") || strings.Contains(text.Stdout, "wrong-token-123") {
		t.Fatalf("vx doctor (text):\n%s", text)
	}

	srv.Stop()
	c, res = doctorRemote(t, ws, env(srv, onPath), token)
	if res.Code != 1 || c.Status != "problem" || !strings.Contains(c.Detail, "unreachable") || !strings.Contains(c.Fix, srv.URL+"/v8/artifacts/status") {
		t.Fatalf("a stopped server: exit %d, %+v\n%s", res.Code, c, res)
	}

	c, res = doctorRemote(t, ws, append(harness.Env("VX_REMOTE_CACHE_URL", "TURBO_API"), onPath))
	if c.Status != "skipped" || res.Code != 0 {
		t.Fatalf("no remote cache configured: exit %d, %+v\n%s", res.Code, c, res)
	}
}
