package runner_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/flock"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// TestIntactHitTakesNoLock: a task whose outputs are as vx left them is a
// hit even while another process holds the task's lock (nothing is read
// or written for it); once an output is edited the hit must restore it,
// and waits for the lock.
func TestIntactHitTakesNoLock(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"projects": ["p/*"], "tasks": {"build": {"outputs": ["dist/**"]}}}`,
		"p/a/package.json":  `{"name": "a", "scripts": {"build": "mkdir -p dist && echo built > dist/out.txt && echo said"}}`,
		"p/a/src/index.js":  "export {}",
	})
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	run := func(ctx context.Context) *wire.TaskRow {
		t.Helper()
		o := &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build"}}, Environ: []string{"PATH=" + os.Getenv("PATH")}, Command: []string{"run", "build"}}
		p, err := runner.Prepare(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := runner.Execute(ctx, p, o, runner.Output{W: io.Discard})
		if err != nil || len(sum.Tasks) != 1 {
			t.Fatalf("run: %v %+v", err, sum)
		}
		return &sum.Tasks[0]
	}
	if row := run(ctx); row.Cache != wire.CacheMiss || row.Status != wire.StatusPassed {
		t.Fatalf("first run: %s %s, want a passed miss", row.Status, row.Cache)
	}

	// Another process holds a#build's lock.
	lock := filepath.Join(layout.Locks(root), "a_build.lock")
	held, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := flock.TryLock(held); err != nil {
		t.Fatal(err)
	}

	// Bounded: a run that waited for the lock would end interrupted.
	intactCtx, cancelIntact := context.WithTimeout(ctx, 20*time.Second)
	defer cancelIntact()
	if row := run(intactCtx); row.Cache != wire.CacheHit || row.Status != wire.StatusPassed {
		t.Fatalf("intact outputs, lock held elsewhere: %s %s (%s), want a hit", row.Status, row.Cache, row.Reason)
	}

	// An edited output needs restoring: that waits for the lock, and a
	// run given up while waiting says so.
	out := filepath.Join(root, "p/a/dist/out.txt")
	if err := os.WriteFile(out, []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if row := run(waitCtx); row.Status != wire.StatusInterrupted {
		t.Fatalf("edited output, lock held elsewhere: %s %s (%s), want interrupted while waiting", row.Status, row.Cache, row.Reason)
	}
	if b, _ := os.ReadFile(out); string(b) != "edited\n" {
		t.Fatalf("the waiting run wrote %q into the output", b)
	}
	flock.Unlock(held)
	if row := run(ctx); row.Cache != wire.CacheHit {
		t.Fatalf("after the lock is let go: %s %s, want a hit", row.Status, row.Cache)
	}
	if b, _ := os.ReadFile(out); string(b) != "built\n" {
		t.Fatalf("restored output holds %q, want the built one", b)
	}
}
