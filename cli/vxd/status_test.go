package vxd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/cli/vx"
	"github.com/vzn/vx/daemon/server"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// serveWorkspace runs a daemon in this process for a one-project workspace.
func serveWorkspace(t *testing.T) string {
	return serveConfig(t, `{"projects": ["apps/*"]}`)
}

// serveConfig is serveWorkspace with config as its vx.workspace.json.
func serveConfig(t *testing.T, config string) string {
	t.Helper()
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":     config,
		"apps/web/package.json": `{"name": "web", "scripts": {"build": "true"}}`,
	})
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- server.Serve(ctx, server.Options{Root: root, IdleTimeout: -1, Logger: zerolog.Nop(), Ready: func(*wire.Discovery) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("Serve: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("daemon not ready after 30s")
	}
	t.Cleanup(func() { cancel(); <-done })
	return root
}

func runVXD(argv ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Run(context.Background(), argv, &cmdline.IO{Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestVXDStatusFormats(t *testing.T) {
	root := serveWorkspace(t)
	decode := func(t *testing.T, args ...string) wire.Status {
		t.Helper()
		code, out, errs := runVXD(append([]string{"status", "--root", root}, args...)...)
		if code != 0 {
			t.Fatalf("vxd status %v: exit %d: %s", args, code, errs)
		}
		var st wire.Status
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("vxd status %v is not JSON: %v\n%s", args, err, out)
		}
		return st
	}
	for _, args := range [][]string{{"--format", "json"}, {"--format=json"}, {"--json"}, {"--json", "--format", "json"}} {
		st := decode(t, args...)
		if st.Workspace != root || st.Version != version.Version || st.Projects != 1 {
			t.Errorf("vxd status %v = workspace %q version %q projects %d", args, st.Workspace, st.Version, st.Projects)
		}
	}

	for _, args := range [][]string{nil, {"--format", "text"}} {
		code, out, _ := runVXD(append([]string{"status", "--root", root}, args...)...)
		if code != 0 || !strings.Contains(out, "workspace") || !strings.Contains(out, root) || strings.HasPrefix(strings.TrimSpace(out), "{") {
			t.Errorf("vxd status %v: exit %d, want the table:\n%s", args, code, out)
		}
	}

	refusals := []struct {
		args []string
		want string
	}{
		{[]string{"--format", "yaml"}, `"yaml"`},
		{[]string{"--format", "text", "--json"}, "disagree"},
		{[]string{"--format"}, "--format"},
	}
	for _, tc := range refusals {
		code, out, errs := runVXD(append([]string{"status", "--root", root}, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("vxd status %v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", tc.args, code, out, errs, tc.want)
		}
	}
}

func TestVersionFlags(t *testing.T) {
	var out bytes.Buffer
	if code := vx.Run(context.Background(), []string{"--version"}, &cmdline.IO{Out: &out, Err: &out}); code != 0 || out.String() != version.Line("vx")+"\n" {
		t.Errorf("vx --version: exit %d, %q", code, out.String())
	}
	if code, stdout, _ := runVXD("--version"); code != 0 || stdout != version.Line("vxd")+"\n" {
		t.Errorf("vxd --version: exit %d, %q", code, stdout)
	}
}

// TestVXDStatusJSONWhenNotRunning: with no daemon, --format json still
// prints a JSON object saying so (never an empty stdout), and exits 1.
func TestVXDStatusJSONWhenNotRunning(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{"vx.workspace.json": `{"projects": []}`})
	for _, args := range [][]string{{"--format", "json"}, {"--json"}} {
		code, out, errs := runVXD(append([]string{"status", "--root", root}, args...)...)
		var st wire.NotRunning
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("vxd status %v with no daemon: stdout is not a JSON object (%v): %q (stderr %q)", args, err, out, errs)
		}
		if code != 1 || st.Running || st.Workspace != root || !strings.Contains(st.Message, "not running") || !strings.Contains(errs, "vxd is not running for "+root) {
			t.Errorf("vxd status %v with no daemon: exit %d, %+v; want exit 1, running false, workspace %s and a message", args, code, st, root)
		}
	}
	code, out, errs := runVXD("status", "--root", root)
	if code != 1 || out != "" || !strings.Contains(errs, "vxd is not running for "+root) {
		t.Errorf("vxd status (text) with no daemon: exit %d, stdout %q, stderr %q; want the sentence on stderr and exit 1", code, out, errs)
	}
}

// TestVXDStatusNamesFailedPlugins: a reload whose configuration loaded
// while a plugin failed says so, naming the plugin, rather than "ok".
func TestVXDStatusNamesFailedPlugins(t *testing.T) {
	root := serveConfig(t, `{"projects": ["apps/*"], "plugins": ["./tools/missing.mjs", "./tools/gone.mjs"]}`)
	code, out, errs := runVXD("status", "--root", root, "--format", "json")
	var st wire.Status
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil {
		t.Fatalf("vxd status: exit %d (%v): %s%s", code, err, out, errs)
	}
	if r := st.LastReload; r == nil || !r.OK || strings.Join(r.PluginsFailed, ",") != "./tools/missing.mjs,./tools/gone.mjs" {
		t.Errorf("last reload %+v; want a reload that loaded, with both plugins failed", st.LastReload)
	}
	code, out, _ = runVXD("status", "--root", root)
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "last reload") {
			line = l
		}
	}
	if code != 0 || strings.Contains(line, " ok)") || !strings.Contains(line, "loaded; 2 plugins failed: ./tools/missing.mjs, ./tools/gone.mjs") {
		t.Errorf("vxd status: exit %d, last reload line %q; want it to name the failed plugins:\n%s", code, line, out)
	}
}

// TestWatchLineNamesFailedPlugins: vxd status --watch's line for a reload
// in which plugins failed says which, as the feed's event does.
func TestWatchLineNamesFailedPlugins(t *testing.T) {
	e := wire.Event{Type: wire.EventModelReloaded, Time: time.Now(), Error: wire.PluginsFailedText([]string{"./a.mjs", "@x/p"})}
	if got := describeEvent(e); !strings.HasSuffix(got, " configuration reloaded; 2 plugins failed: ./a.mjs, @x/p") {
		t.Errorf("watch line %q", got)
	}
	e.Error = ""
	if got := describeEvent(e); !strings.HasSuffix(got, " configuration reloaded") {
		t.Errorf("watch line %q", got)
	}
}
