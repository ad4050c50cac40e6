//go:build !windows

// Package npm_test checks vx's npm packages where users get them: make
// release's packages published to a real npm registry (verdaccio, pinned
// in tests/npmregistry/node, on loopback with its own storage and no
// uplink), then installed into fresh workspaces by npm, pnpm, yarn and bun
// and used as a user would: vx --version, a cold and a warm run, vx doctor,
// and an MCP session through npx.
package npm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/reach"
)

// The version the test stamps into the packages it builds and publishes.
const (
	version    = "0.0.0-npmtest"
	commit     = "npmtest"
	npmVersion = "0.0.0-npmtest"
)

// tools is tests/npmregistry/node's node_modules/.bin: verdaccio and the
// package managers.
func tools(t *testing.T) string {
	t.Helper()
	reach.Tool(t, "node", "Node runs the registry and the package managers")
	reach.Tool(t, "npm", "npm publishes and installs")
	bin := filepath.Join(harness.ModuleRoot(), "tests", "npmregistry", "node", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "verdaccio")); err != nil {
		reach.Missing(t, "verdaccio is not installed: run npm ci in tests/npmregistry/node")
	}
	return bin
}

// pack builds the packages of this host's platform and the plugins with
// make release's script into a fresh directory and returns their tarballs.
func pack(t *testing.T) []string {
	t.Helper()
	dist := filepath.Join(t.TempDir(), "dist")
	cmd := exec.Command("bash", "scripts/release.sh")
	cmd.Dir = harness.ModuleRoot()
	cmd.Env = append(harness.Env(), "VERSION="+version, "COMMIT="+commit, "DIST="+dist, "TARGETS="+runtime.GOOS+"/"+runtime.GOARCH, "COMMANDS=vx vxd")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("scripts/release.sh: %v\n%s", err, out)
	}
	tgz, _ := filepath.Glob(filepath.Join(dist, "npm", "*.tgz"))
	var names []string
	for _, f := range tgz {
		names = append(names, filepath.Base(f))
	}
	want := []string{"vzn-vx-" + npmVersion + ".tgz", "vzn-vx-" + runtime.GOOS + "-", "vzn-vx-plugin-eslint-" + npmVersion + ".tgz", "vzn-vx-plugin-vitest-" + npmVersion + ".tgz"}
	if len(names) != 4 || names[0] != want[0] || !strings.HasPrefix(names[1], want[1]) || names[2] != want[2] || names[3] != want[3] {
		t.Fatalf("dist/npm holds %v, want @vzn/vx, this platform's package and the two plugins", names)
	}
	return tgz
}

// registry is a running verdaccio: its URL and a publishing token.
type registry struct {
	url, token string
}

// startRegistry starts verdaccio on a free loopback port with its storage
// in a fresh directory and no uplink (nothing but what the test publishes
// can be installed), and stops it when the test ends. A port taken
// between its choice and verdaccio's listen is tried again with another
// (harness.OnFreePort).
func startRegistry(t *testing.T, bin string) registry {
	t.Helper()
	dir := t.TempDir()
	config := fmt.Sprintf(`storage: %s/storage
auth:
  htpasswd:
    file: %s/htpasswd
    max_users: 10
uplinks: {}
packages:
  '**':
    access: $all
    publish: $authenticated
max_body_size: 200mb
log: {type: stdout, format: pretty, level: warn}
`, dir, dir)
	harness.WriteFile(t, filepath.Join(dir, "config.yaml"), config)
	var r registry
	harness.OnFreePort(t, "verdaccio", func(port int) bool {
		r.url = fmt.Sprintf("http://127.0.0.1:%d/", port)
		return !launchRegistry(t, bin, dir, port)
	})
	r.token = addUser(t, r.url)
	return r
}

// launchRegistry starts verdaccio on port and waits until it answers:
// false when it exited because the port was taken.
func launchRegistry(t *testing.T, bin, dir string, port int) bool {
	t.Helper()
	var logs harness.SyncBuffer
	cmd := exec.Command(filepath.Join(bin, "verdaccio"), "--config", filepath.Join(dir, "config.yaml"), "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Env = harness.Env()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting verdaccio: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	up := true
	harness.WaitFor(t, time.Minute, "verdaccio to answer", func() bool {
		select {
		case <-done:
			if strings.Contains(logs.String(), "EADDRINUSE") {
				up = false
				return true
			}
			t.Fatalf("verdaccio exited:\n%s", logs.String())
		default:
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/-/ping", port))
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == http.StatusOK
	})
	return up
}

// addUser creates the registry's one user, as npm adduser does, and
// returns its token.
func addUser(t *testing.T, url string) string {
	t.Helper()
	body := `{"name": "vxtest", "password": "vx-npm-test-password"}`
	req, _ := http.NewRequest(http.MethodPut, url+"-/user/org.couchdb.user:vxtest", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Token == "" {
		t.Fatalf("creating the registry user: %s, %v", resp.Status, err)
	}
	return out.Token
}

// npmrc is the .npmrc pointing every package manager at the registry.
func (r registry) npmrc() string {
	host := strings.TrimPrefix(r.url, "http:")
	return "registry=" + r.url + "\n" + host + ":_authToken=" + r.token + "\n"
}

// env is the environment of the package managers and of vx: a HOME of
// its own (their caches and stores), the registry, the tools on PATH, and
// nothing of an npm the test itself may run under.
func env(t *testing.T, home, bin string) []string {
	t.Helper()
	var out []string
	for _, kv := range harness.Env() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToLower(name), "npm_") || name == "HOME" || name == "PATH" || name == "XDG_CACHE_HOME" || name == "XDG_DATA_HOME" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
}

// publish publishes each tarball to the registry with npm.
func publish(t *testing.T, dir string, env []string, tgz []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, f := range tgz {
		cmd := exec.CommandContext(ctx, "npm", "publish", "--tag", "latest", f)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm publish %s: %v\n%s", filepath.Base(f), err, out)
		}
	}
}
