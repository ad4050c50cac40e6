//go:build !windows

package windows_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/tests/internal/harness"
)

// wineDaemonCmd is the wine command running exe with args in dir. Its
// stderr goes to a file, not a pipe: wine hands every process it starts
// the Unix stderr of the one that started it (for its debug output),
// whatever Windows handles that process was given, so a vxd that vx.exe
// started holds it as long as it serves, and a pipe there would never
// reach EOF. (On Windows vxd's stderr is its log file alone.)
func wineDaemonCmd(t *testing.T, dir, exe string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(wineBin, append([]string{exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = wineEnv()
	f, err := os.Create(filepath.Join(t.TempDir(), "wine-stderr"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd.Stderr = f
	return cmd
}

// wineDaemon runs exe with args in dir (stderr as wineDaemonCmd says) and
// answers its stdout, its stderr and its exit code.
func wineDaemon(t *testing.T, dir, exe string, args ...string) (string, string, int) {
	t.Helper()
	cmd := wineDaemonCmd(t, dir, exe, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("wine %s %s did not end within 2 minutes:\n%s", filepath.Base(exe), strings.Join(args, " "), out.String())
	}
	stderr, _ := os.ReadFile(cmd.Stderr.(*os.File).Name())
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("wine %s %s: %v", filepath.Base(exe), strings.Join(args, " "), err)
	}
	return out.String(), string(stderr), cmd.ProcessState.ExitCode()
}

// wsMark names the workspace root (a t.TempDir) in a command line: its
// parent's name, which holds the test's name and a random number (the
// root's own name is a counter, as in 001).
func wsMark(root string) string { return filepath.Base(filepath.Dir(root)) }

// liveVxd lists the processes (wine's, seen from Linux; zombies left out:
// they have ended) whose command line names vxd.exe serving root.
func liveVxd(root string) []int {
	var out []int
	for _, pid := range markedPids("vxd.exe", "") {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		if strings.Contains(harness.Cmdline(pid), wsMark(root)) {
			out = append(out, pid)
		}
	}
	return out
}

// TestVxdStartStatusStop: vxd.exe start serves the workspace, status
// --format json answers the fields a Linux vxd answers, the discovery
// file and the approval key are written, a discovery file wine shows as
// readable by Everyone (made 0644 from Linux: wine builds a file's access
// list from its mode bits) is refused by name, and stop leaves no vxd.exe
// running. Wine keeps no access list a program sets (SetNamedSecurityInfo
// succeeds and changes nothing), so that vxd makes the files the user's
// alone is shown only on a real Windows runner.
func TestVxdStartStatusStop(t *testing.T) {
	needWine(t)
	ws := t.TempDir()
	cmdWorkspace(t, ws)
	vxd := filepath.Join(windowsBinaries(t), "vxd.exe")
	defer killMarked(wsMark(ws))

	if out, errs, code := wineDaemon(t, ws, vxd, "start"); code != 0 {
		t.Fatalf("vxd start: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code := wineDaemon(t, ws, vxd, "status", "--format", "json")
	var st map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st["pid"] == nil || st["url"] == nil {
		t.Fatalf("vxd status --format json: exit %d, want a running daemon's status\n%s\n%s", code, out, errs)
	}
	if want := linuxStatusFields(t); !slices.Equal(keys(st), want) {
		t.Errorf("vxd.exe status has the fields %v; a Linux vxd's has %v", keys(st), want)
	}
	if len(liveVxd(ws)) == 0 {
		t.Errorf("vxd status answers, but no vxd.exe process serves %s", ws)
	}
	for _, f := range []string{layout.Discovery(ws), approveKey(t, ws)} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("vxd.exe did not write %s: %v", f, err)
		}
	}

	refusesOpenDiscovery(t, ws, vxd)

	if out, errs, code := wineDaemon(t, ws, vxd, "stop"); code != 0 || !strings.Contains(out, "vxd stopped") {
		t.Fatalf("vxd stop: exit %d\n%s\n%s", code, out, errs)
	}
	harness.WaitFor(t, 30*time.Second, "vxd.exe to exit after vxd stop", func() bool { return len(liveVxd(ws)) == 0 })
	out, _, code = wineDaemon(t, ws, vxd, "status", "--format", "json")
	if code == 0 || !strings.Contains(out, `"running": false`) {
		t.Errorf("vxd status after stop: exit %d, want not running\n%s", code, out)
	}
}

// refusesOpenDiscovery: with the discovery file made readable by others
// (mode 0644, which wine shows as an access list granting Everyone read),
// vxd status refuses to trust it and says why; made 0600 again, it does.
func refusesOpenDiscovery(t *testing.T, ws, vxd string) {
	t.Helper()
	if err := os.Chmod(layout.Discovery(ws), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := wineDaemon(t, ws, vxd, "status", "--format", "json")
	if code == 0 || !strings.Contains(out, "is open to other users (its access list grants S-1-1-0") {
		t.Errorf("vxd status with the discovery file readable by Everyone: exit %d, want it refused by its access list\n%s", code, out)
	}
	if err := os.Chmod(layout.Discovery(ws), 0o600); err != nil {
		t.Fatal(err)
	}
}

// approveKey is where vxd.exe keeps the approval key of the workspace at
// ws under the suite's prefix: %APPDATA%\vx\approve\HASH.key, HASH naming
// the root as Windows sees it (Z:\ and the Linux path, backslashed).
func approveKey(t *testing.T, ws string) string {
	t.Helper()
	sum := sha256.Sum256([]byte("Z:" + strings.ReplaceAll(ws, "/", `\`)))
	name := hex.EncodeToString(sum[:12]) + ".key"
	found, _ := filepath.Glob(filepath.Join(suite.prefix, "drive_c", "users", "*", "AppData", "Roaming", "vx", "approve", name))
	if len(found) != 1 {
		t.Fatalf("no approval key %s under the prefix's %%APPDATA%%\\vx\\approve", name)
	}
	return found[0]
}

// keys are m's keys, sorted.
func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// linux is a Linux vx and vxd built once for the suite, to compare with.
var linux struct {
	once sync.Once
	dir  string
	err  error
}

// linuxBinaries builds vx and vxd for this machine once.
func linuxBinaries(t *testing.T) string {
	t.Helper()
	linux.once.Do(func() {
		linux.dir = filepath.Join(suite.dir, "linux")
		cmd := exec.Command("go", "build", "-o", linux.dir+string(filepath.Separator), "./cmd/vx", "./cmd/vxd")
		cmd.Dir = harness.ModuleRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			linux.err = err
			t.Logf("%s", out)
		}
	})
	if linux.err != nil {
		t.Fatalf("building vx and vxd: %v", linux.err)
	}
	return linux.dir
}

// linuxStatusFields are the fields of a Linux vxd's status --format json
// for the same workspace.
func linuxStatusFields(t *testing.T) []string {
	t.Helper()
	ws := t.TempDir()
	cmdWorkspace(t, ws)
	vxd := filepath.Join(linuxBinaries(t), "vxd")
	env := harness.Env()
	if r := harness.Run(t, ws, env, vxd, "start"); r.Code != 0 {
		t.Fatalf("vxd start on Linux:\n%s", r)
	}
	defer harness.Run(t, ws, env, vxd, "stop")
	r := harness.Run(t, ws, env, vxd, "status", "--format", "json")
	var st map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("vxd status --format json on Linux: %v\n%s", err, r)
	}
	return keys(st)
}

// TestMCPToolsList: vx.exe mcp, spoken to by the MCP Go SDK's client over
// its stdio, starts vxd.exe and answers initialize and tools/list with the
// tools a Linux vx mcp lists for the same workspace; closing its stdin
// ends it, exit 0 with no signal sent, while vxd.exe serves on.
func TestMCPToolsList(t *testing.T) {
	needWine(t)
	ws := t.TempDir()
	cmdWorkspace(t, ws)
	vxd := filepath.Join(windowsBinaries(t), "vxd.exe")
	defer killMarked(wsMark(ws))
	defer wineDaemon(t, ws, vxd, "stop")

	got := mcpTools(t, wineDaemonCmd(t, ws, filepath.Join(windowsBinaries(t), "vx.exe"), "mcp"))
	if len(liveVxd(ws)) == 0 {
		t.Errorf("vx.exe mcp answered, but no vxd.exe serves %s after it ended", ws)
	}

	lws := t.TempDir()
	cmdWorkspace(t, lws)
	cmd := exec.Command(filepath.Join(linuxBinaries(t), "vx"), "mcp")
	cmd.Dir, cmd.Env = lws, harness.Env()
	defer harness.Run(t, lws, harness.Env(), filepath.Join(linuxBinaries(t), "vxd"), "stop")
	if want := mcpTools(t, cmd); !slices.Equal(got, want) {
		t.Errorf("vx.exe mcp lists %d tools %v;\nLinux vx mcp lists %d: %v", len(got), got, len(want), want)
	}
}

// mcpTools connects the SDK's client to cmd, checks initialize's server
// name, and answers tools/list's names, sorted, after closing the session
// (which must end cmd by itself: the SDK signals it only after 30 s, and
// then Close answers the signal).
func mcpTools(t *testing.T, cmd *exec.Cmd) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "vx-windows-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 30 * time.Second}, nil)
	if err != nil {
		t.Fatalf("%v: initialize: %v", cmd.Args, err)
	}
	if ir := cs.InitializeResult(); ir == nil || ir.ServerInfo == nil || ir.ServerInfo.Name != "vx" {
		t.Errorf("%v: initialize answered %+v, want serverInfo vx", cmd.Args, ir)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("%v: tools/list: %v", cmd.Args, err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if err := cs.Close(); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("%v: closing its stdin did not end it: %v", cmd.Args, err)
	}
	return names
}
