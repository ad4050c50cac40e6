package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/cache"
	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// planWorkspace: app → mid (no build) → ui, utils → core; docs stands alone.
var planWorkspace = map[string]string{
	"vx.workspace.json":    `{"projects": ["p/*"], "tasks": {"build": {"dependsOn": ["^build"]}}}`,
	"p/app/package.json":   `{"name": "app", "scripts": {"build": "true"}, "dependencies": {"mid": "*"}}`,
	"p/mid/package.json":   `{"name": "mid", "dependencies": {"ui": "*", "utils": "*"}}`,
	"p/ui/package.json":    `{"name": "ui", "scripts": {"build": "true"}, "dependencies": {"core": "*"}}`,
	"p/utils/package.json": `{"name": "utils", "scripts": {"build": "true"}, "dependencies": {"core": "*"}}`,
	"p/core/package.json":  `{"name": "core", "scripts": {"build": "true"}}`,
	"p/docs/package.json":  `{"name": "docs", "scripts": {"build": "true"}}`,
	"p/core/src/index.js":  "export {}",
}

// recordHistory writes one passed run whose executions took the given ms.
func recordHistory(t *testing.T, root string, durations map[string]int64) {
	t.Helper()
	ctx := context.Background()
	h, err := history.Open(ctx, history.Path(root), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	start := time.Now().Add(-time.Minute)
	r := &history.Run{Command: "vx run build", StartedAt: start}
	if err := h.BeginRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	var execs []history.Execution
	zero := 0
	for id, ms := range durations {
		p, task, _ := workspace.SplitTaskID(id)
		execs = append(execs, history.Execution{RunID: r.ID, TaskID: id, Project: p, Task: task, Key: "k", Status: history.StatusPassed,
			Cache: history.CacheMiss, ExitCode: &zero, StartedAt: start, DurationMs: ms})
	}
	if err := h.RecordExecutions(ctx, execs); err != nil {
		t.Fatal(err)
	}
	if err := h.FinishRun(ctx, r.ID, history.RunPassed, 0, start.Add(time.Second), len(execs), 0, 0); err != nil {
		t.Fatal(err)
	}
}

func setup(t *testing.T) *workspace.Model {
	t.Helper()
	root := t.TempDir()
	testtree.Write(t, root, planWorkspace)
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPlanCriticalPath(t *testing.T) {
	durations := map[string]int64{"core#build": 100, "ui#build": 500, "utils#build": 50, "app#build": 200}
	tests := []struct {
		name      string
		history   bool
		hits      []string // tasks with a cache entry
		force     bool
		workers   int
		wantPath  []string
		wantWall  int64
		wantWork  int64
		unknown   []string
		wantCache map[string]string
	}{
		{
			name: "longest path through a no-op node", history: true, workers: 8,
			wantPath: []string{"core#build", "ui#build", "app#build"}, wantWall: 800, wantWork: 850,
			unknown:   []string{"docs#build"},
			wantCache: map[string]string{"ui#build": wire.CacheMiss},
		},
		{
			name: "a predicted hit costs nothing and moves the path", history: true, hits: []string{"ui#build"}, workers: 8,
			wantPath: []string{"core#build", "utils#build", "app#build"}, wantWall: 350, wantWork: 350,
			unknown:   []string{"docs#build"},
			wantCache: map[string]string{"ui#build": wire.CacheHit, "utils#build": wire.CacheMiss},
		},
		{
			name: "force predicts misses", history: true, hits: []string{"ui#build"}, force: true, workers: 8,
			wantPath: []string{"core#build", "ui#build", "app#build"}, wantWall: 800, wantWork: 850,
			unknown:   []string{"docs#build"},
			wantCache: map[string]string{"ui#build": wire.CacheMiss},
		},
		{
			name: "one worker: wall is at least the work", history: true, workers: 1,
			wantPath: []string{"core#build", "ui#build", "app#build"}, wantWall: 850, wantWork: 850,
			unknown: []string{"docs#build"},
		},
		{
			name: "no history: everything unknown", history: false, workers: 2,
			wantPath: nil, wantWall: 0, wantWork: 0,
			unknown: []string{"app#build", "core#build", "docs#build", "ui#build", "utils#build"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			m := setup(t)
			if tc.history {
				recordHistory(t, m.Root, durations)
			}
			p, err := runner.Prepare(ctx, &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build"}}, Concurrency: tc.workers, Environ: []string{"PATH=/usr/bin:/bin"}})
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if len(tc.hits) > 0 {
				store, err := cache.Open(filepath.Join(runner.VXDir(m.Root), "cache"), nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, id := range tc.hits {
					if _, err := store.Put(ctx, cache.Meta{Key: p.Keys[id], TaskID: id}, m.Root, nil, []byte("log")); err != nil {
						t.Fatalf("cache Put: %v", err)
					}
				}
			}
			plan, err := runner.Plan(ctx, p, tc.force)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			var ids []string
			byID := map[string]wire.PlanTask{}
			for _, pt := range plan.Tasks {
				ids = append(ids, pt.TaskID)
				byID[pt.TaskID] = pt
			}
			if _, ok := byID["mid#build"]; ok {
				t.Errorf("the no-op mid#build is planned: %v", ids)
			}
			if len(plan.Tasks) != 5 {
				t.Errorf("planned %v, want the 5 builds with a command", ids)
			}
			if got := byID["app#build"].DependsOn; !reflect.DeepEqual(got, []string{"ui#build", "utils#build"}) {
				t.Errorf("app#build dependsOn = %v, want [ui#build utils#build] (looked through mid)", got)
			}
			if got := byID["app#build"].Key; got == "" || got != p.Keys["app#build"] {
				t.Errorf("app#build key = %q, want %q", got, p.Keys["app#build"])
			}
			if tc.history {
				if v := byID["ui#build"].P50Ms; v == nil || *v != 500 {
					t.Errorf("ui#build p50 = %v, want 500", v)
				}
			} else if byID["ui#build"].P50Ms != nil {
				t.Errorf("ui#build p50 = %v without history", *byID["ui#build"].P50Ms)
			}
			for id, want := range tc.wantCache {
				if got := byID[id].Cache; got != want {
					t.Errorf("%s cache = %q, want %q", id, got, want)
				}
			}
			pr := plan.Predicted
			if len(tc.wantPath) == 0 {
				if len(pr.CriticalPath) != 0 && tc.history {
					t.Errorf("critical path = %v, want empty", pr.CriticalPath)
				}
			} else if !reflect.DeepEqual(pr.CriticalPath, tc.wantPath) {
				t.Errorf("critical path = %v, want %v", pr.CriticalPath, tc.wantPath)
			}
			if pr.WallMs != tc.wantWall || pr.WorkMs != tc.wantWork {
				t.Errorf("wall %d work %d, want %d %d", pr.WallMs, pr.WorkMs, tc.wantWall, tc.wantWork)
			}
			got := append([]string{}, pr.Unknown...)
			sortStrings(got)
			if !reflect.DeepEqual(got, tc.unknown) {
				t.Errorf("unknown = %v, want %v", got, tc.unknown)
			}
			if pr.Workers != tc.workers {
				t.Errorf("workers = %d, want %d", pr.Workers, tc.workers)
			}
			if pr.CriticalPath == nil || pr.Unknown == nil {
				t.Error("criticalPath or unknown is null")
			}
		})
	}
}

// TestPlanWritesNothing: a dry run on a fresh workspace creates no
// history and no cache.
func TestPlanWritesNothing(t *testing.T) {
	ctx := context.Background()
	m := setup(t)
	p, err := runner.Prepare(ctx, &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build"}}, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Plan(ctx, p, false); err != nil {
		t.Fatalf("Plan on a fresh workspace: %v", err)
	}
	for _, f := range []string{history.Path(m.Root), filepath.Join(runner.VXDir(m.Root), "cache")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s exists after a dry run (stat err %v)", f, err)
		}
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
