package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

const baseConfig = `{"projects": ["apps/*"], "tasks": {"build": {"command": "true"}}}`

// newWorkspace writes a one-project workspace into a temp dir.
func newWorkspace(t *testing.T, config string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"vx.workspace.json":     config,
		"apps/web/package.json": `{"name": "web", "scripts": {"test": "true"}}`,
	}
	testtree.Write(t, root, files)
	return root
}

// running is a daemon Serve runs in this process.
type running struct {
	disc *wire.Discovery
	done chan error
	stop context.CancelFunc
}

// serve starts Serve on root and waits until its discovery file is written.
func serve(t *testing.T, root string, idle time.Duration) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *wire.Discovery, 1)
	r := &running{done: make(chan error, 1), stop: cancel}
	go func() {
		r.done <- Serve(ctx, Options{Root: root, IdleTimeout: idle, Logger: zerolog.Nop(), Ready: func(d *wire.Discovery) { ready <- d }})
	}()
	select {
	case r.disc = <-ready:
	case err := <-r.done:
		cancel()
		t.Fatalf("Serve ended before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("Serve not ready after 30s")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after its context ended")
		}
	})
	return r
}

// status asks the daemon for GET /status with its token.
func (r *running) status(t *testing.T) *wire.Status {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/status", r.disc.Port), nil)
	req.Header.Set("Authorization", "Bearer "+r.disc.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /status: %s", resp.Status)
	}
	var st wire.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return &st
}

// eventually polls cond until it holds or 15s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s after 15s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLock(t *testing.T) {
	root := t.TempDir()
	f, err := lockDaemon(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockDaemon(root); !errors.Is(err, ErrRunning) {
		t.Errorf("second Lock = %v, want ErrRunning", err)
	}
	st, err := os.Stat(layout.Daemon(root))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("daemon dir: %v, mode %v; want 0700", err, st.Mode().Perm())
	}
	f.Close()
	g, err := lockDaemon(root)
	if err != nil {
		t.Fatalf("Lock after the holder closed it: %v", err)
	}
	g.Close()
}

func TestServeOwnsTheWorkspace(t *testing.T) {
	root := newWorkspace(t, baseConfig)
	r := serve(t, root, -1)
	b, err := os.ReadFile(layout.Discovery(root))
	if err != nil {
		t.Fatal(err)
	}
	var disc wire.Discovery
	if err := json.Unmarshal(b, &disc); err != nil {
		t.Fatal(err)
	}
	if disc.Port != r.disc.Port || disc.Token != r.disc.Token || disc.PID != os.Getpid() || disc.Root != root || disc.Version != version.Version {
		t.Errorf("discovery file %+v, Ready gave %+v", disc, r.disc)
	}
	if st, _ := os.Stat(layout.Discovery(root)); st.Mode().Perm() != 0o600 {
		t.Errorf("discovery file mode %v, want 0600", st.Mode().Perm())
	}
	if err := Serve(context.Background(), Options{Root: root, Logger: zerolog.Nop()}); !errors.Is(err, ErrRunning) {
		t.Errorf("a second Serve = %v, want ErrRunning", err)
	}
	st := r.status(t)
	if st.Version != version.Version || st.Workspace != root || st.Projects != 1 || st.LastReload == nil || st.LastReload.Trigger != "start" {
		t.Errorf("status %+v", st)
	}

	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/status", r.disc.Port), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status without the token: %s, want 401", resp.Status)
	}

	r.stop()
	if err := <-r.done; err != nil {
		t.Errorf("Serve = %v after its context ended", err)
	}
	r.done <- nil // for the cleanup
	if _, err := os.Stat(layout.Discovery(root)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("discovery file left behind: %v", err)
	}
	f, err := lockDaemon(root)
	if err != nil {
		t.Fatalf("lock still held after Serve returned: %v", err)
	}
	f.Close()
}

func TestReload(t *testing.T) {
	root := newWorkspace(t, baseConfig)
	r := serve(t, root, -1)
	before := r.status(t)
	cfg := filepath.Join(root, "vx.workspace.json")

	t.Run("an edit reloads the model", func(t *testing.T) {
		edited := strings.Replace(baseConfig, `"build": {"command": "true"}`, `"build": {"command": "true"}, "lint": {"command": "true"}`, 1)
		if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		var st *wire.Status
		eventually(t, "reloaded with the new task", func() bool {
			st = r.status(t)
			return st.Tasks == before.Tasks+1
		})
		if st.LastReload == nil || !st.LastReload.OK || st.LastReload.Trigger != "vx.workspace.json" || st.ConfigError != "" {
			t.Errorf("last reload %+v, config error %q", st.LastReload, st.ConfigError)
		}
	})

	t.Run("a broken edit keeps the last good model", func(t *testing.T) {
		if err := os.WriteFile(cfg, []byte(`{"projects": ["apps/*"],`), 0o644); err != nil {
			t.Fatal(err)
		}
		var st *wire.Status
		eventually(t, "reporting the failed reload", func() bool {
			st = r.status(t)
			return st.LastReload != nil && !st.LastReload.OK
		})
		if !strings.Contains(st.ConfigError, "vx.workspace.json:1:") || st.LastReload.Error == "" {
			t.Errorf("config error %q, reload %+v: want the file and position", st.ConfigError, st.LastReload)
		}
		if st.Projects != 1 || st.Tasks != before.Tasks+1 {
			t.Errorf("after a failed reload: %d projects, %d tasks; want the last good model (1, %d)", st.Projects, st.Tasks, before.Tasks+1)
		}
	})

	t.Run("a new project is found", func(t *testing.T) {
		if err := os.WriteFile(cfg, []byte(baseConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, "apps", "api"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "apps", "api", "package.json"), []byte(`{"name": "api"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		var st *wire.Status
		eventually(t, "serving two projects", func() bool {
			st = r.status(t)
			return st.Projects == 2 && st.ConfigError == ""
		})
		// Tasks counts tasks (project × task name), not task names: web
		// has build and its test script, api has build.
		if st.Tasks != 3 {
			t.Errorf("status: %d projects, %d tasks; want 3 tasks (web#build, web#test, api#build)", st.Projects, st.Tasks)
		}
	})
}

func TestIdleTimeout(t *testing.T) {
	root := newWorkspace(t, baseConfig)
	r := serve(t, root, 200*time.Millisecond)
	idlesOut(t, root, r.done)
	r.done <- nil // for the cleanup
}

func TestWorkspaceDeletedStops(t *testing.T) {
	root := newWorkspace(t, baseConfig)
	r := serve(t, root, -1)
	if err := os.Remove(filepath.Join(root, "vx.workspace.json")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Errorf("Serve = %v after the workspace went away", err)
		}
		r.done <- nil
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon still serves 30s after vx.workspace.json was deleted")
	}
}
