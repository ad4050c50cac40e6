// Package remotecache_test runs the real vx binary against the real
// Turborepo remote cache server (the turborepo-remote-cache npm package,
// installed in tests/remotecache/node by .ci/run) with local storage in a
// temp dir: no mock of the server, no mock of vx.
package remotecache_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"
)

var vxBin string

func TestMain(m *testing.M) {
	os.Exit(harness.Suite{
		TempPrefix: "vx-remotecache-test-",
		// Built with the race detector: uploads, downloads and warnings run
		// concurrently with the tasks, and a race fails the run (see vx below).
		Binaries: []harness.Binary{{Dest: &vxBin, Path: "vx", Pkg: "./cmd/vx", Flags: []string{"-race"}, Given: "VX_TEST_BIN"}},
	}.Run(m))
}

func here() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// serverCLI is the installed server's entry point; a missing install skips
// the suite outside CI and fails it in CI.
func serverCLI(t *testing.T) string {
	t.Helper()
	cli := filepath.Join(here(), "node", "node_modules", "turborepo-remote-cache", "dist", "cli.js")
	_, err := os.Stat(cli)
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the turborepo-remote-cache server is not installed (%v); .ci/run installs it with npm ci in tests/remotecache/node", err)
		}
		t.Skipf("turborepo-remote-cache not installed (%v): run (cd tests/remotecache/node && npm ci)", err)
	}
	return cli
}

// server is one running turborepo-remote-cache.
type server struct {
	URL     string
	Storage string // STORAGE_PATH: <team>/<artifact id> files
	cmd     *exec.Cmd
	done    chan struct{}
	log     *bytes.Buffer
	logMu   *sync.Mutex
}

const token = "tok-3f9a1c55e2b8"

// startServer starts the server on a free port with a static token and
// local storage; extra env (READ_ONLY=true, TURBO_REMOTE_CACHE_SIGNATURE_KEY)
// changes its setup. A port taken between its choice and the server's
// listen is tried again with another (harness.OnFreePort).
func startServer(t *testing.T, extra ...string) *server {
	t.Helper()
	cli := serverCLI(t)
	storage := filepath.Join(t.TempDir(), "storage")
	var s *server
	harness.OnFreePort(t, "the remote cache server", func(port int) (taken bool) {
		s, taken = launchServer(t, cli, storage, port, extra)
		return taken
	})
	return s
}

// launchServer starts the server once on port and waits until it
// answers; inUse when it exited because its port was taken.
func launchServer(t *testing.T, cli, storage string, port int, extra []string) (s *server, inUse bool) {
	t.Helper()
	cmd := exec.Command("node", cli)
	cmd.Env = append(harness.Env(), "STORAGE_PROVIDER=local", "STORAGE_PATH="+storage, "STORAGE_PATH_USE_TMP_FOLDER=false",
		"TURBO_TOKEN="+token, "PORT="+strconv.Itoa(port), "HOST=127.0.0.1", "LOG_LEVEL=warn", "NODE_ENV=production")
	cmd.Env = append(cmd.Env, extra...)
	s = &server{URL: "http://127.0.0.1:" + strconv.Itoa(port), Storage: storage, cmd: cmd, done: make(chan struct{}), log: &bytes.Buffer{}, logMu: &sync.Mutex{}}
	cmd.Stdout, cmd.Stderr = lockedWriter{s.log, s.logMu}, lockedWriter{s.log, s.logMu}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	go func() { cmd.Wait(); close(s.done) }()
	t.Cleanup(s.Stop)
	harness.WaitFor(t, 2*time.Minute, "the remote cache server to answer", func() bool {
		select {
		case <-s.done:
			if strings.Contains(s.Log(), "EADDRINUSE") {
				inUse = true
				return true
			}
			t.Fatalf("the server exited:\n%s", s.Log())
		default:
		}
		resp, err := http.Get(s.URL + "/v8/artifacts/status")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	return s, inUse
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (s *server) Log() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

// Stop kills the server and waits for it.
func (s *server) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.done
}

// artifacts lists the artifact files the server stores (tags apart).
func (s *server) artifacts(t *testing.T) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(s.Storage, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".tag") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// clone copies the suite's workspace into a fresh directory: a clone of
// the same repository on another machine.
func clone(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(harness.TempRoot(t), "ws")
	harness.CopyTree(t, filepath.Join(here(), "testdata", "ws"), dst)
	return dst
}

// env is vx's environment for server s, plus extra.
func env(s *server, extra ...string) []string {
	e := harness.Env("VX_REMOTE_CACHE_URL", "VX_REMOTE_CACHE_TOKEN", "VX_REMOTE_CACHE_TEAM", "VX_REMOTE_CACHE_SIGNATURE_KEY",
		"VX_REMOTE_CACHE_READ_ONLY", "TURBO_API", "TURBO_TOKEN", "TURBO_TEAM", "TURBO_REMOTE_CACHE_SIGNATURE_KEY", "CI", "VX_LOG")
	e = append(e, "VX_REMOTE_CACHE_URL="+s.URL, "VX_REMOTE_CACHE_TOKEN="+token, "VX_REMOTE_CACHE_TEAM=team_vxsuite", "API_SECRET=hunter2-sekrit-value")
	return append(e, extra...)
}

type taskRow struct {
	TaskID      string `json:"taskId"`
	Status      string `json:"status"`
	Cache       string `json:"cache"`
	CacheSource string `json:"cacheSource"`
}

type summary struct {
	OK     bool      `json:"ok"`
	Tasks  []taskRow `json:"tasks"`
	Totals struct {
		Cached     int `json:"cached"`
		RemoteHits int `json:"remoteHits"`
	} `json:"totals"`
	Warnings []string `json:"warnings"`
	Remote   *struct {
		Status         string `json:"status"`
		Hits           int    `json:"hits"`
		Rejected       int    `json:"rejected"`
		Uploads        int    `json:"uploads"`
		UploadFailures int    `json:"uploadFailures"`
		BytesDown      int64  `json:"bytesDown"`
		BytesUp        int64  `json:"bytesUp"`
		Write          bool   `json:"write"`
	} `json:"remote"`
}

// runJSON runs vx run ... --format json in dir and decodes the summary.
func runJSON(t *testing.T, dir string, e []string, args ...string) (summary, harness.Result) {
	t.Helper()
	res := vx(t, dir, e, append(append([]string{"run"}, args...), "--format", "json")...)
	var s summary
	if err := json.Unmarshal([]byte(res.Stdout), &s); err != nil {
		t.Fatalf("decoding the summary: %v\n%s", err, res)
	}
	return s, res
}

func sources(s summary) map[string]string {
	m := map[string]string{}
	for _, r := range s.Tasks {
		src := r.Cache
		if r.Cache == "hit" {
			src = r.CacheSource
		}
		m[r.TaskID] = src
	}
	return m
}

func all(s summary, want string) bool {
	for _, v := range sources(s) {
		if v != want {
			return false
		}
	}
	return len(s.Tasks) > 0
}

// tree reads every file under dir/packages/*/dist: path → mode and bytes.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(filepath.Join(dir, "packages"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(filepath.ToSlash(p), "/dist/") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fi.Mode().String() + " " + string(b)
		return nil
	})
	return out
}

func warnings(s summary, sub string) []string {
	var out []string
	for _, w := range s.Warnings {
		if strings.Contains(w, sub) {
			out = append(out, w)
		}
	}
	return out
}

// vx runs the vx binary and fails the test on a data race report.
func vx(t *testing.T, dir string, e []string, args ...string) harness.Result {
	t.Helper()
	res := harness.Run(t, dir, e, vxBin, args...)
	if strings.Contains(res.Stderr, "WARNING: DATA RACE") {
		t.Fatalf("vx %s raced:\n%s", strings.Join(args, " "), res.Stderr)
	}
	return res
}
