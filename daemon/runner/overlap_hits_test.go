package runner_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// Two tasks of a run whose outputs overlap never run at once (the output
// guard), hits included: a task's hit must not be answered while the
// other task of its pair is running and rewriting the files it checks.
// The whole workspace's overlaps are empty here (a task the run does not
// select names an unknown dependency, so the model's graph cannot be
// built), which leaves only the run's own pairs to keep them apart.
func TestQuickHitKeepsRunOverlapsApart(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"projects": ["p/*"], "tasks": {
			"build": {"outputs": ["dist/**"], "inputs": ["src/**"], "dependsOn": ["prep"]},
			"gen": {"outputs": ["dist/**"], "inputs": ["gen.txt"]},
			"prep": {"cache": false, "inputs": ["src/**"]},
			"broken": {"dependsOn": ["nosuch"]}}}`,
		"p/a/package.json": `{"name": "a", "scripts": {
			"build": "mkdir -p dist && echo built > dist/out.txt",
			"gen": "sleep 1.5 && mkdir -p dist && cat gen.txt > dist/gen.txt",
			"prep": "sleep 0.3"}}`,
		"p/a/gen.txt":  "1",
		"p/a/prep.txt": "1",
	})
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.OutputOverlaps()) != 0 {
		t.Fatalf("the model's overlaps are %v: the test needs none", m.OutputOverlaps())
	}
	type span struct{ start, end int }
	run := func() map[string]*span {
		t.Helper()
		var mu sync.Mutex
		seq := 0
		spans := map[string]*span{}
		o := &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build", "gen"}}, Concurrency: 4, Environ: []string{"PATH=" + os.Getenv("PATH")}, Command: []string{"run", "build", "gen"}}
		p, err := runner.Prepare(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		events := func(e wire.Event) {
			mu.Lock()
			defer mu.Unlock()
			seq++
			switch e.Type {
			case wire.EventTaskStarted:
				spans[e.TaskID] = &span{start: seq}
			case wire.EventTaskFinished:
				if s := spans[e.TaskID]; s != nil {
					s.end = seq
				}
			}
		}
		sum, err := runner.Execute(ctx, p, o, runner.Output{W: io.Discard, Events: events})
		if err != nil || !sum.OK {
			t.Fatalf("run: %v %+v", err, sum)
		}
		return spans
	}
	run()
	// gen's and prep's inputs change: both run again; build, whose
	// outputs are intact, becomes ready (prep done) while gen runs.
	for _, f := range []string{"p/a/gen.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("2"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spans := run()
	b, g := spans["a#build"], spans["a#gen"]
	if b == nil || g == nil {
		t.Fatalf("spans %v", spans)
	}
	if b.start < g.end && g.start < b.end {
		t.Fatalf("a#build (events %d–%d) ran while a#gen (events %d–%d), which writes the same outputs, was running", b.start, b.end, g.start, g.end)
	}
}
