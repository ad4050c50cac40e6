//go:build !windows

// Package engine_test runs the real vx binary against workspaces copied
// from testdata/: real processes, real SQLite files, real cache entries.
// Nothing here mocks a part of vx; a test asserts what a user relies on.
package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/klauspost/compress/zstd"
)

// vxBin is the vx binary built once by TestMain.
var vxBin string

// VX_TEST_BIN runs the tests against a binary built elsewhere (a
// release, or a tree other engineers are not editing).
func TestMain(m *testing.M) {
	os.Exit(harness.Suite{
		TempPrefix: "vx-engine-test-",
		Binaries:   []harness.Binary{{Dest: &vxBin, Path: "vx", Pkg: "./cmd/vx", Given: "VX_TEST_BIN"}},
	}.Run(m))
}

// baseEnv is the environment every vx invocation starts from: the test's
// own, without variables that would change what vx does.
func baseEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "VX_LOG", name == "CI", name == "TOKEN", name == "LEDGER", name == "NODE_ENV",
			strings.HasPrefix(name, "GIT_"):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// workspace copies testdata/NAME into a fresh temp dir and returns it.
func workspace(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	harness.CopyTree(t, filepath.Join("testdata", name), dst)
	return dst
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return string(b)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// result is what one vx invocation did.
type result = harness.Result

// vx runs the binary in dir with baseEnv plus env and waits for it.
func vx(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	return harness.Run(t, dir, append(baseEnv(), env...), vxBin, args...)
}

// vxOK runs vx and fails the test unless it exits 0.
func vxOK(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	r := vx(t, dir, env, args...)
	if r.Code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
	return r
}

// decodeOnly decodes stdout as exactly one JSON document: anything but
// whitespace around it fails the test.
func decodeOnly(t *testing.T, r result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.Stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not a JSON document: %v\n%s", err, r)
	}
	tail := strings.TrimSpace(r.Stdout[dec.InputOffset():])
	if tail != "" {
		t.Fatalf("stdout holds more than the JSON document: %q\n%s", tail, r)
	}
}

// summary is the run summary of `vx run --format json`, as a client reads it.
type summary struct {
	RunID      string    `json:"runId"`
	OK         bool      `json:"ok"`
	ExitCode   int       `json:"exitCode"`
	Status     string    `json:"status"`
	StartedAt  time.Time `json:"startedAt"`
	DurationMs int64     `json:"durationMs"`
	Tasks      []taskRow `json:"tasks"`
	Warnings   []string  `json:"warnings"`
}

type taskRow struct {
	TaskID     string   `json:"taskId"`
	Status     string   `json:"status"`
	Cache      string   `json:"cache"`
	Key        string   `json:"key"`
	DurationMs int64    `json:"durationMs"`
	ExitCode   *int     `json:"exitCode"`
	Reason     string   `json:"reason"`
	BlockedBy  []string `json:"blockedBy"`
	TimedOut   bool     `json:"timedOut"`
}

func (s *summary) row(t *testing.T, id string) taskRow {
	t.Helper()
	for _, r := range s.Tasks {
		if r.TaskID == id {
			return r
		}
	}
	t.Fatalf("run %s has no row for %s (rows: %v)", s.RunID, id, s.ids())
	return taskRow{}
}

func (s *summary) ids() []string {
	var out []string
	for _, r := range s.Tasks {
		out = append(out, r.TaskID)
	}
	sort.Strings(out)
	return out
}

// keys maps task id to key.
func (s *summary) keys() map[string]string {
	out := map[string]string{}
	for _, r := range s.Tasks {
		out[r.TaskID] = r.Key
	}
	return out
}

// runJSON runs `vx run ARGS --format json`, checks the exit code and
// decodes the summary (stdout must hold nothing else).
func runJSON(t *testing.T, dir string, env []string, wantCode int, args ...string) (*summary, result) {
	t.Helper()
	r := vx(t, dir, env, append(append([]string{"run"}, args...), "--format", "json")...)
	if r.Code != wantCode {
		t.Fatalf("want exit %d\n%s", wantCode, r)
	}
	var s summary
	decodeOnly(t, r, &s)
	if s.ExitCode != wantCode {
		t.Fatalf("summary exitCode %d, process exit %d\n%s", s.ExitCode, r.Code, r)
	}
	return &s, r
}

// answerJSON runs a question verb with --format json and decodes it.
func answerJSON(t *testing.T, dir string, v any, args ...string) result {
	t.Helper()
	r := vxOK(t, dir, nil, append(args, "--format", "json")...)
	decodeOnly(t, r, v)
	return r
}

// survivors lists live processes started for the workspace at root: vx
// gives every task VX_WORKSPACE_ROOT=root, and children inherit it, so it
// marks the task's whole process tree, whatever each process became.
func survivors(root string) []string { return survivorsWith(root) }

// survivorsWith lists the survivors whose environment also holds each of
// the entries in also (such as VX_TASK_ID=svc#build).
func survivorsWith(root string, also ...string) []string {
	var out []string
	for _, pid := range markedWith(root, also...) {
		stat, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		out = append(out, fmt.Sprintf("pid %d (%s): %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}), statState(stat)))
	}
	return out
}

// markedWith lists the live processes whose environment holds the
// workspace root's marker and every entry of also.
func markedWith(root string, also ...string) []int {
	marker := []byte("VX_WORKSPACE_ROOT=" + root)
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone, or not ours
		}
		kvs := bytes.Split(env, []byte{0})
		if slices.ContainsFunc(kvs, func(kv []byte) bool { return bytes.Equal(kv, marker) }) && allIn(kvs, also) {
			out = append(out, pid)
		}
	}
	return out
}

// killLeftIn kills what still runs with the marker of the workspace at
// root: what a killed run would leave, had vx's watchdog failed. Never a
// pid read from a file: once its process is gone, the number may be
// another process's (on a busy machine pids wrap within minutes).
func killLeftIn(root string) {
	for _, pid := range markedWith(root) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// allIn says whether every entry of want is one of kvs.
func allIn(kvs [][]byte, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(kvs, func(kv []byte) bool { return string(kv) == w }) {
			return false
		}
	}
	return true
}

func statState(stat []byte) string {
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return "state " + string(stat[i+2])
	}
	return "state ?"
}

// assertNoSurvivors fails when a process of the workspace's tasks is
// still alive. Killed processes need a moment to be reaped, so it
// re-checks for a few seconds before failing; a process that outlives its
// task by 30 s (the sleeps the tests start) fails it.
func assertNoSurvivors(t *testing.T, root string) {
	t.Helper()
	var left []string
	for range 60 {
		if left = survivors(root); len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("processes of the tasks survived vx:\n%s", strings.Join(left, "\n"))
}

// findSecret reports every file under dir whose bytes contain needle,
// also inside zstd frames (cache entries and history compress logs).
func findSecret(t *testing.T, dir string, needle []byte) []string {
	t.Helper()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	magic := []byte{0x28, 0xb5, 0x2f, 0xfd}
	var hits []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(b, needle) {
			hits = append(hits, p)
			return nil
		}
		for off := 0; ; {
			i := bytes.Index(b[off:], magic)
			if i < 0 {
				break
			}
			start := off + i
			off = start + 1
			if err := dec.Reset(bytes.NewReader(b[start:])); err != nil {
				continue
			}
			plain, _ := io.ReadAll(io.LimitReader(dec, 64<<20))
			if bytes.Contains(plain, needle) {
				hits = append(hits, p+" (inside a zstd frame at byte "+strconv.Itoa(start)+")")
				return nil
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", dir, err)
	}
	return hits
}

// snapshot reads every file under dir/sub into path → content.
func snapshot(t *testing.T, dir string, globs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, g := range globs {
		matches, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(g)))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(dir, m)
			out[filepath.ToSlash(rel)] = readFile(t, m)
		}
	}
	return out
}

func removeAll(t *testing.T, dir string, globs ...string) {
	t.Helper()
	for _, g := range globs {
		matches, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(g)))
		for _, m := range matches {
			if err := os.RemoveAll(m); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
