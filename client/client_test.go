package client_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/client"
	"github.com/vzn/vx/internal/flock"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
)

// oldVersion is stamped into a second vxd, so the client meets a daemon of
// another version.
const oldVersion = "0.0.1-old"

var vxdBin, oldBin string

func TestMain(m *testing.M) { os.Exit(buildAndRun(m)) }

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "vx-client-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	_, file, _, _ := runtime.Caller(0)
	module := filepath.Join(filepath.Dir(file), "..")
	vxdBin, oldBin = filepath.Join(dir, "new", "vxd"), filepath.Join(dir, "old", "vxd")
	for _, b := range []struct{ out, ldflags string }{
		{vxdBin, ""},
		{oldBin, "-X github.com/vzn/vx/protocol/version.Version=" + oldVersion},
	} {
		cmd := exec.Command("go", "build", "-ldflags", b.ldflags, "-o", b.out, "./cmd/vxd")
		cmd.Dir = module
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building vxd:", err)
			return 1
		}
	}
	// A daemon a failed test leaves behind ends by itself.
	os.Setenv("VXD_IDLE_TIMEOUT", "2m")
	return m.Run()
}

func newWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":     `{"projects": ["apps/*"], "tasks": {"build": {"command": "true"}}}`,
		"apps/web/package.json": `{"name": "web"}`,
	})
	return root
}

// ensureCurrent is a client of this version's vxd for root, its daemon
// already up (Ensure).
func ensureCurrent(t *testing.T, root string) *client.Client {
	t.Helper()
	c := &client.Client{Root: root, VXD: vxdBin, Version: version.Version}
	if _, _, err := c.Ensure(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	return c
}

// ensureOld is a client of the old version's vxd for root, its daemon up.
func ensureOld(t *testing.T, root string) *client.Client {
	t.Helper()
	c := &client.Client{Root: root, VXD: oldBin, Version: oldVersion}
	if _, _, err := c.Ensure(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	return c
}

// stopAtEnd stops whatever daemon serves root when the test ends.
func stopAtEnd(t *testing.T, root string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if _, err := (&client.Client{Root: root}).Stop(ctx); err != nil {
			t.Errorf("stopping the daemon: %v", err)
		}
	})
}

// holdLock takes root's daemon lock until the test ends, as a daemon
// holds it (one that is starting, before it rewrites the discovery file).
func holdLock(t *testing.T, root string) {
	t.Helper()
	if err := os.MkdirAll(layout.Daemon(root), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(layout.DaemonLock(root), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := flock.TryLock(f); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoveryIsAHint(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		file   string // discovery file contents; "" = none
		locked bool   // a process holds the workspace lock
		reason string
	}{
		{"no discovery file", "", false, "no discovery file"},
		{"not JSON", "{", false, "unreadable"},
		{"no port or token", `{"pid": 1}`, false, "unreadable"},
		{"no daemon holds the lock", `{"pid": 1, "port": 1, "token": "t", "root": "/"}`, false, "no vxd holds the workspace lock"},
		{"nobody on the port", `{"pid": 1, "port": 1, "token": "t", "root": "/"}`, true, "does not answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := newWorkspace(t)
			if tc.file != "" {
				if err := os.MkdirAll(layout.Daemon(root), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(layout.Discovery(root), []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tc.locked {
				holdLock(t, root)
			}
			c := &client.Client{Root: root}
			_, _, err := c.Status(ctx)
			if !client.IsNotRunning(err) || !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), root) {
				t.Errorf("Status = %v, want not running (%s) naming %s", err, tc.reason, root)
			}
			if stopped, err := c.Stop(ctx); stopped || err != nil {
				t.Errorf("Stop with no daemon = %v, %v; want false, nil", stopped, err)
			}
		})
	}
}

func TestStartStatusStop(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t)
	stopAtEnd(t, root)
	c := &client.Client{Root: root, VXD: vxdBin, Version: version.Version}
	url, token, err := c.Ensure(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	st, d, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if url != fmt.Sprintf("http://127.0.0.1:%d", d.Port) || token != d.Token || st.Workspace != root || st.Version != version.Version || st.PID != d.PID {
		t.Errorf("Ensure gave %s %s; status %+v; discovery %+v", url, token, st, d)
	}
	url2, _, err := c.Ensure(ctx, false)
	if err != nil || url2 != url {
		t.Errorf("second Ensure = %s, %v; want the running daemon %s", url2, err, url)
	}
	if st2, _, _ := c.Status(ctx); st2 == nil || st2.PID != st.PID {
		t.Errorf("a second Ensure started another daemon: %+v", st2)
	}

	t.Run("another workspace's discovery file is refused", func(t *testing.T) {
		other := newWorkspace(t)
		b, _ := os.ReadFile(layout.Discovery(root))
		if err := os.MkdirAll(layout.Daemon(other), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(layout.Discovery(other), b, 0o600); err != nil {
			t.Fatal(err)
		}
		holdLock(t, other) // (else the client would not even ask)
		_, _, err := (&client.Client{Root: other}).Status(ctx)
		if !client.IsNotRunning(err) || !strings.Contains(err.Error(), "serves "+root) {
			t.Errorf("Status = %v, want not running: the daemon serves %s", err, root)
		}
	})

	stopped, err := c.Stop(ctx)
	if !stopped || err != nil {
		t.Fatalf("Stop = %v, %v", stopped, err)
	}
	if _, _, err := c.Status(ctx); !client.IsNotRunning(err) {
		t.Errorf("Status after Stop = %v, want not running", err)
	}
}

func TestOtherVersionReplaced(t *testing.T) {
	ctx := context.Background()
	root := newWorkspace(t)
	stopAtEnd(t, root)
	out, err := exec.Command(oldBin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "vxd "+oldVersion+" (") {
		t.Fatalf("old vxd --version = %q, %v; want the stamped %s", out, err, oldVersion)
	}
	old := ensureOld(t, root)
	oldSt, _, err := old.Status(ctx)
	if err != nil || oldSt.Version != oldVersion {
		t.Fatalf("old daemon status %+v, %v", oldSt, err)
	}

	c := ensureCurrent(t, root)
	st, _, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != version.Version || st.PID == oldSt.PID {
		t.Errorf("after Ensure: version %s pid %d; want %s in a new process (old pid %d)", st.Version, st.PID, version.Version, oldSt.PID)
	}
}

func TestStartFailsClearly(t *testing.T) {
	root := newWorkspace(t)
	c := &client.Client{Root: root, VXD: filepath.Join(t.TempDir(), "no-such-vxd")}
	if _, err := c.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "no-such-vxd") {
		t.Errorf("Start with a missing vxd = %v, want an error naming it", err)
	}
}
