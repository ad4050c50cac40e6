//go:build !windows

package platform_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
	"github.com/vzn/vx/tests/internal/pgtest"
)

// serveProc is a running vx-platform serve.
type serveProc struct {
	cmd  *exec.Cmd
	base string
	log  string // its stderr, debug level: a line per request
}

// startServe runs `vx-platform serve` on a port the system picks (its
// listen address read from its log: no port chosen beforehand that
// another process could take meanwhile) over db, through the command
// prefix when one is given (such as prlimit with its flags).
func startServe(t *testing.T, bin, db string, prefix ...string) *serveProc {
	t.Helper()
	return serveAt(t, bin, db, "127.0.0.1:0", prefix...)
}

// serveAt runs `vx-platform serve` listening on addr ("127.0.0.1:0":
// a port of the system's choice) and waits until it answers.
func serveAt(t *testing.T, bin, db, addr string, prefix ...string) *serveProc {
	t.Helper()
	argv := append(append(prefix, bin), "serve", "--listen", addr, "--log-level", "debug")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(harness.Env("VX_PLATFORM_DB", "VX_PLATFORM_LISTEN"), "VX_PLATFORM_DB="+db)
	logPath := filepath.Join(t.TempDir(), "serve.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	harness.DieWithTest(cmd.SysProcAttr, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, log: logPath}
	t.Cleanup(func() { p.stop() })
	harness.WaitFor(t, 30*time.Second, "vx-platform to log where it listens", func() bool {
		listen := listenAddr(t, logPath)
		p.base = "http://" + listen
		return listen != ""
	})
	harness.WaitFor(t, 30*time.Second, "vx-platform to answer /healthz", func() bool {
		resp, err := http.Get(p.base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return p
}

// listenAddr is the address vx-platform serve logged it listens on ("" while
// it has not).
func listenAddr(t *testing.T, logPath string) string {
	t.Helper()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		var l struct{ Message, Listen string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Message == "vx-platform serving" {
			return l.Listen
		}
	}
	return ""
}

func (p *serveProc) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	_ = p.cmd.Wait()
}

func runCLI(t *testing.T, bin, db string, args ...string) harness.Result {
	t.Helper()
	env := append(harness.Env("VX_PLATFORM_DB"), "VX_PLATFORM_DB="+db)
	return harness.Run(t, t.TempDir(), env, bin, args...)
}

func writeWorkspace(t *testing.T, dir, platformURL string) {
	files := map[string]string{
		"vx.workspace.json": fmt.Sprintf(`{"projects": ["packages/*"],
			"tasks": {"build": {"dependsOn": ["^build"], "inputs": ["src/**", "package.json"], "outputs": ["dist/**"]}},
			"platform": {"url": %q, "workspace": "demo"}}`, platformURL),
		"package.json":               `{"name": "root", "private": true, "workspaces": ["packages/*"]}`,
		"packages/core/package.json": `{"name": "core", "version": "1.0.0", "scripts": {"build": "mkdir -p dist && cat src/*.js > dist/index.js"}}`,
		"packages/core/src/a.js":     "export const a = 1;\n",
		"packages/app/package.json":  `{"name": "app", "version": "1.0.0", "dependencies": {"core": "workspace:*"}, "scripts": {"build": "mkdir -p dist && cat src/*.js > dist/index.js"}}`,
		"packages/app/src/main.js":   "import { a } from 'core';\n",
	}
	for name, text := range files {
		harness.WriteFile(t, filepath.Join(dir, name), text)
	}
}

// vx runs the vx binary in the workspace with the platform token set.
func vxIn(t *testing.T, bin, dir, token string, args ...string) harness.Result {
	t.Helper()
	env := append(harness.Env("CI", "VX_LOG", "VX_PLATFORM_URL", "VX_PLATFORM_WORKSPACE", "VX_PLATFORM_TOKEN"), "VX_PLATFORM_TOKEN="+token)
	return harness.Run(t, dir, env, bin, args...)
}

func runID(t *testing.T, r harness.Result) string {
	t.Helper()
	var sum struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil || sum.RunID == "" {
		t.Fatalf("no run summary on stdout: %v\n%s", err, r)
	}
	return sum.RunID
}

func outbox(t *testing.T, dir string) []string {
	entries, _ := os.ReadDir(filepath.Join(dir, ".vx", "outbox"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// From a real vx run to the platform and back through the tools; a run
// made while the platform is down waits in the outbox and is sent by vx
// push; pushing everything again stores nothing twice; the token is
// nowhere on disk.
func TestRealRunsReachThePlatform(t *testing.T) {
	vx, platform := binaries(t)
	db := pgtest.URL(t)
	if r := runCLI(t, platform, db, "migrate"); r.Code != 0 {
		t.Fatal(r)
	}
	if r := runCLI(t, platform, db, "org", "create", "acme"); r.Code != 0 {
		t.Fatal(r)
	}
	mint := func(scope string) string {
		r := runCLI(t, platform, db, "token", "create", "--org", "acme", "--scope", scope, "--name", "t-"+scope)
		lines := strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n")
		if r.Code != 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], "vxc_") || len(lines[0]) < 4+43 {
			t.Fatalf("token create must print the token and nothing else: %s", r)
		}
		return lines[0]
	}
	ingestTok, readTok := mint("ingest"), mint("read")
	srv := startServe(t, platform, db)

	ws := harness.TempRoot(t)
	writeWorkspace(t, ws, srv.base)
	r1 := vxIn(t, vx, ws, ingestTok, "run", "build", "--format", "json")
	if r1.Code != 0 {
		t.Fatal(r1)
	}
	id1 := runID(t, r1)
	if n := outbox(t, ws); len(n) != 0 {
		t.Fatalf("delivered run left in the outbox: %v\n%s", n, r1)
	}
	got := call(t, srv.base, readTok, "get_run", map[string]any{"runId": id1}).Struct
	if get(t, got, "found") != true || get(t, got, "workspace", "slug") != "demo" || len(get(t, got, "tasks").([]any)) != 2 {
		t.Fatalf("get_run of the pushed run: %v", got)
	}
	for _, x := range get(t, got, "tasks").([]any) {
		if x.(map[string]any)["status"] != "passed" || x.(map[string]any)["cache"] != "miss" || x.(map[string]any)["key"] == "" {
			t.Fatalf("task row: %v", x)
		}
	}

	// The platform goes down; the run's result is unchanged and the run waits.
	harness.WriteFile(t, filepath.Join(ws, "packages/core/src/a.js"), "export const a = 2;\n")
	srv.stop()
	r2 := vxIn(t, vx, ws, ingestTok, "run", "build", "--format", "json")
	if r2.Code != 0 || !strings.Contains(r2.Stderr, "kept in .vx/outbox") {
		t.Fatalf("run while the platform is down: %s", r2)
	}
	id2 := runID(t, r2)
	if n := outbox(t, ws); len(n) != 1 || n[0] != id2+".json" {
		t.Fatalf("outbox after an undeliverable push: %v", n)
	}
	// Back at the address the workspace names.
	srv = serveAt(t, platform, db, strings.TrimPrefix(srv.base, "http://"))
	if r := vxIn(t, vx, ws, ingestTok, "push"); r.Code != 0 || !strings.Contains(r.Stdout, "pushed 1 run(s)") {
		t.Fatalf("vx push: %s", r)
	}
	if n := outbox(t, ws); len(n) != 0 {
		t.Fatalf("outbox after vx push: %v", n)
	}
	why := call(t, srv.base, readTok, "why_did_rerun", map[string]any{"runId": id2, "taskId": "core#build"}).Struct
	if get(t, why, "changed") != true || get(t, why, "previousRunId") != id1 {
		t.Fatalf("why_did_rerun of the replayed run: %v", why)
	}
	if files := get(t, why, "diff", "files", "changed").([]any); len(files) != 1 || files[0] != "src/a.js" {
		t.Fatalf("why_did_rerun files: %v", get(t, why, "diff"))
	}
	appWhy := call(t, srv.base, readTok, "why_did_rerun", map[string]any{"runId": id2, "taskId": "app#build"}).Struct
	if up := get(t, appWhy, "diff", "upstream", "changed").([]any); len(up) != 1 || up[0] != "core#build" {
		t.Fatalf("app#build re-ran for its upstream: %v", up)
	}

	// Everything again: nothing stored twice.
	if r := vxIn(t, vx, ws, ingestTok, "push", "--all"); r.Code != 0 || !strings.Contains(r.Stdout, "pushed 0 run(s)") || !strings.Contains(r.Stdout, "2 already there") {
		t.Fatalf("vx push --all: %s", r)
	}
	runs := call(t, srv.base, readTok, "list_runs", nil).Struct
	if list := get(t, runs, "runs").([]any); len(list) != 2 || get(t, list, 0, "runId") != id2 || get(t, list, 1, "runId") != id1 {
		t.Fatalf("list_runs after re-pushes: %v", runs)
	}

	// The token is in no file vx wrote.
	_ = filepath.WalkDir(filepath.Join(ws, ".vx"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), ingestTok) || strings.Contains(string(b), ingestTok[4:20]) {
			t.Errorf("%s holds the platform token", p)
		}
		return nil
	})
	for _, out := range []string{r1.Stderr, r2.Stderr} {
		if strings.Contains(out, ingestTok) {
			t.Error("vx printed the token")
		}
	}
	// Nor in the server's log, which has a line per request.
	logText, _ := os.ReadFile(srv.log)
	if !strings.Contains(string(logText), `"path":"/v1/runs"`) {
		t.Fatalf("serve log has no request lines: %s", logText)
	}
	for _, tok := range []string{ingestTok, readTok} {
		if strings.Contains(string(logText), tok) || strings.Contains(string(logText), tok[4:20]) {
			t.Error("vx-platform logged a token")
		}
	}
}

// Two vx-platform processes over one database: same answers, and a
// token revoked through the command line is refused by both at once.
func TestTwoServeProcessesOneDatabase(t *testing.T) {
	_, platform := binaries(t)
	db := pgtest.URL(t)
	a := startServe(t, platform, db)
	b := startServe(t, platform, db)
	if r := runCLI(t, platform, db, "org", "create", "acme"); r.Code != 0 {
		t.Fatal(r)
	}
	tok := strings.TrimSpace(runCLI(t, platform, db, "token", "create", "--org", "acme").Stdout)
	for _, s := range []*serveProc{a, b} {
		if r := do(t, "GET", s.base+"/v1/workspaces", tok, nil); r.status != 200 {
			t.Fatalf("%s: %d %s", s.base, r.status, r.body)
		}
	}
	list := runCLI(t, platform, db, "token", "list", "--org", "acme")
	sc := bufio.NewScanner(strings.NewReader(list.Stdout))
	var id string
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 && strings.HasPrefix(f[0], "tok_") {
			id = f[0]
		}
	}
	if id == "" || strings.Contains(list.Stdout, tok) {
		t.Fatalf("token list: %s", list)
	}
	if r := runCLI(t, platform, db, "token", "revoke", id); r.Code != 0 {
		t.Fatal(r)
	}
	for _, s := range []*serveProc{a, b} {
		if r := do(t, "GET", s.base+"/v1/workspaces", tok, nil); r.status != http.StatusUnauthorized {
			t.Fatalf("%s after revoke: %d", s.base, r.status)
		}
	}
}
