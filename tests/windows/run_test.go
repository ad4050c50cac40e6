//go:build !windows

package windows_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

// binaries are vx.exe and vxd.exe, cross-compiled once for the suite
// (cgo for the history's SQLite, linked static, with the wine overlay).
var binaries struct {
	once sync.Once
	dir  string
	err  error
}

// windowsBinaries builds vx.exe and vxd.exe once and answers their folder.
func windowsBinaries(t *testing.T) string {
	t.Helper()
	binaries.once.Do(func() {
		binaries.dir = filepath.Join(suite.dir, "bin")
		cmd := goWindows(true, "build", "-o", binaries.dir+string(filepath.Separator), "-overlay", suite.overlay,
			"-tags", "sqlite_omit_load_extension", "-ldflags", "-extldflags=-static", "./cmd/vx", "./cmd/vxd")
		if out, err := cmd.CombinedOutput(); err != nil {
			binaries.err = err
			t.Logf("%s", out)
		}
	})
	if binaries.err != nil {
		t.Fatalf("cross-compiling vx.exe and vxd.exe: %v", binaries.err)
	}
	return binaries.dir
}

// wineVX runs vx.exe with args in dir and answers its stdout, stderr and
// exit code.
func wineVX(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, wineBin, append([]string{filepath.Join(windowsBinaries(t), "vx.exe")}, args...)...)
	cmd.Dir = dir
	cmd.Env = wineEnv()
	cmd.WaitDelay = 10 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("wine vx.exe %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String(), code
}

// cmdWorkspace writes a workspace of two projects whose build scripts are
// cmd.exe commands; b depends on a and copies a's output into its own.
func cmdWorkspace(t *testing.T, dir string) {
	t.Helper()
	harness.WriteFile(t, filepath.Join(dir, "package.json"), `{ "name": "root", "private": true, "workspaces": ["packages/*"] }`)
	harness.WriteFile(t, filepath.Join(dir, "vx.workspace.json"), `{
  "projects": ["packages/*"],
  "tasks": { "build": { "dependsOn": ["^build"], "inputs": ["src/**", "package.json"], "outputs": ["out.txt"] } }
}`)
	harness.WriteFile(t, filepath.Join(dir, "packages/a/package.json"),
		`{ "name": "a", "version": "1.0.0", "scripts": { "build": "echo built a> out.txt" } }`)
	harness.WriteFile(t, filepath.Join(dir, "packages/a/src/a.txt"), "a1\n")
	harness.WriteFile(t, filepath.Join(dir, "packages/b/package.json"),
		`{ "name": "b", "version": "1.0.0", "dependencies": { "a": "*" }, "scripts": { "build": "type ..\\a\\out.txt > out.txt && echo built b>> out.txt" } }`)
	harness.WriteFile(t, filepath.Join(dir, "packages/b/src/b.txt"), "b1\n")
}

// runSummary is what this test reads of vx run --format json.
type runSummary struct {
	Tasks []struct {
		TaskID, Status, Cache, Key string
	}
}

// keysOf parses a run's JSON summary into each task's key and cache state.
func keysOf(t *testing.T, stdout string) (keys, cache map[string]string) {
	t.Helper()
	var s runSummary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("vx run --format json: %v\n%s", err, stdout)
	}
	keys, cache = map[string]string{}, map[string]string{}
	for _, task := range s.Tasks {
		keys[task.TaskID], cache[task.TaskID] = task.Key, task.Cache+"/"+task.Status
	}
	return keys, cache
}

// TestRunUnderWine: vx.exe runs a workspace whose scripts are cmd.exe
// commands (cold: both executed, b reading a's output), a warm run is all
// cache hits with the same keys a Linux vx computes for the same files
// (keys use slash-separated workspace-relative paths), and after an edit
// vx why names the edited file by that path.
func TestRunUnderWine(t *testing.T) {
	needWine(t)
	ws := t.TempDir()
	cmdWorkspace(t, ws)

	out, errs, code := wineVX(t, ws, "run", "build", "--format", "json")
	keys, cache := keysOf(t, out)
	if code != 0 || cache["a#build"] != "miss/passed" || cache["b#build"] != "miss/passed" {
		t.Fatalf("cold run: exit %d, %v, want two passed misses\n%s\n%s", code, cache, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(ws, "packages/b/out.txt"))
	if err != nil || string(b) != "built a\r\nbuilt b\r\n" {
		t.Fatalf("b's output %q (%v), want a's line then b's, as cmd.exe writes them", b, err)
	}

	out, errs, code = wineVX(t, ws, "run", "build", "--format", "json")
	warmKeys, cache := keysOf(t, out)
	if code != 0 || cache["a#build"] != "hit/passed" || cache["b#build"] != "hit/passed" {
		t.Fatalf("warm run: exit %d, %v, want two hits\n%s\n%s", code, cache, out, errs)
	}
	for id, k := range keys {
		if warmKeys[id] != k {
			t.Errorf("%s: warm key %s, cold %s", id, warmKeys[id], k)
		}
	}

	t.Run("same key on Linux", func(t *testing.T) { sameKeyOnLinux(t, keys) })

	harness.WriteFile(t, filepath.Join(ws, "packages/a/src/a.txt"), "a2\n")
	if out, errs, code = wineVX(t, ws, "run", "build"); code != 0 {
		t.Fatalf("run after the edit: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, _ = wineVX(t, ws, "why", "a#build")
	if !strings.Contains(out, "the key changed") || !strings.Contains(out, "~ file src/a.txt") {
		t.Fatalf("vx why a#build after editing src/a.txt does not name it by its slash path:\n%s\n%s", out, errs)
	}
}

// sameKeyOnLinux runs a Linux vx on the same files and compares a#build's
// key (b's script is a cmd.exe command that sh cannot run: its key is
// compared, not its status).
func sameKeyOnLinux(t *testing.T, want map[string]string) {
	ws := t.TempDir()
	cmdWorkspace(t, ws)
	vx := filepath.Join(linuxBinaries(t), "vx")
	r := harness.Run(t, ws, harness.Env(), vx, "run", "build", "--format", "json")
	got, _ := keysOf(t, r.Stdout)
	for _, id := range []string{"a#build", "b#build"} {
		if got[id] == "" || got[id] != want[id] {
			t.Errorf("%s: key %q on Linux, %q under wine", id, got[id], want[id])
		}
	}
}
