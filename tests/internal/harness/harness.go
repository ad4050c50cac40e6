// Package harness is what the integration suites under tests/ share:
// building the real binaries once, copying workspaces, running processes
// and reading what they did, and watching processes (Cmdline: one way per
// OS, in proc_linux.go and proc_darwin.go).
package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/history"
)

// ModuleRoot is the source the binaries are built from: VX_TEST_SRC (a
// snapshot of the tree) or this repository.
func ModuleRoot() string {
	if d := os.Getenv("VX_TEST_SRC"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Build builds the Go package pkg (relative to the module root) into out,
// with cgo, passing extra build flags.
func Build(out, pkg string, flags ...string) error {
	args := append([]string{"build", "-o", out}, flags...)
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = ModuleRoot()
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s: %w", pkg, err)
	}
	return nil
}

// Env is the test's own environment without the named variables (and
// git's), which would change what the binaries do.
func Env(drop ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") || contains(drop, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TempRoot is a fresh directory without symlinks in its path, so it
// compares equal to what the daemon reports.
func TempRoot(t *testing.T) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// CopyTree copies the files under src to dst, skipping directories
// named in skipDirs.
func CopyTree(t *testing.T, src, dst string, skipDirs ...string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != src && contains(skipDirs, d.Name()) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
}

// WriteFile writes text to path, creating its directory.
func WriteFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Result is what one process did.
type Result struct {
	Cmd            string
	Args           []string
	Stdout, Stderr string
	Code           int
}

func (r Result) String() string {
	return fmt.Sprintf("%s: exit %d\n--- stdout:\n%s\n--- stderr:\n%s", r.Cmd, r.Code, r.Stdout, r.Stderr)
}

// Run runs bin in dir with env and waits for it; the deadline only keeps
// a hung process from hanging the suite.
func Run(t *testing.T, dir string, env []string, bin string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := Result{Cmd: filepath.Base(bin) + " " + strings.Join(args, " "), Args: args, Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("running %s: %v", r.Cmd, err)
	}
	return r
}

// Alive reports whether pid runs (a zombie does not): it has a start
// time, as vx itself tells (history.ProcStart, one way per OS).
func Alive(pid int) bool { return history.ProcStart(pid) != 0 }

// WaitFor polls cond until it holds; the limit only keeps the suite from
// hanging, it is not what a test asserts.
func WaitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
