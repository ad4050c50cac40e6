package runner_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// TestCacheHitIsMarkedInTaskLines: a task answered from the cache says so
// in its own line before its replayed log, whether its outputs were intact
// or had to be restored; an executed task prints its log alone.
func TestCacheHitIsMarkedInTaskLines(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"projects": ["p/*"], "tasks": {"build": {"outputs": ["dist/**"]}, "check": {}}}`,
		"p/a/package.json":  `{"name": "a", "scripts": {"build": "mkdir -p dist && echo built > dist/out.txt && echo said", "check": "true"}}`,
	})
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	run := func() string {
		t.Helper()
		o := &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build", "check"}}, Environ: []string{"PATH=" + os.Getenv("PATH")}, Command: []string{"run", "build", "check"}}
		p, err := runner.Prepare(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := runner.Execute(ctx, p, o, runner.Output{W: &out}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	const hit = "a#build: cache hit (local), replaying its log\na#build: said\n"
	if out := run(); strings.Contains(out, "cache hit") || !strings.Contains(out, "a#build: said\n") {
		t.Fatalf("cold run:\n%s\nwant the task's log and no hit line", out)
	}
	if out := run(); !strings.Contains(out, hit) || !strings.Contains(out, "a#check: cache hit (local)\n") {
		t.Fatalf("warm run:\n%s\nwant each task marked as a hit (%q, and a#check's with no log)", out, hit)
	}
	if err := os.Remove(filepath.Join(root, "p/a/dist/out.txt")); err != nil {
		t.Fatal(err)
	}
	if out := run(); !strings.Contains(out, hit) {
		t.Fatalf("warm run restoring a deleted output:\n%s\nwant %q", out, hit)
	}
}
