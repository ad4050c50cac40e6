package ops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

const config = `{
  "projects": ["apps/*"],
  "tasks": {
    "build": {"command": "mkdir -p dist && cat src.txt > dist/out.txt", "inputs": ["src.txt"], "outputs": ["dist/**"]},
    "test": {"command": "echo ok", "dependsOn": ["build"], "cache": false}
  }
}`

// fixture is a two-project workspace run twice: web's source changes
// between the runs, and api#test fails both times.
type fixture struct {
	root string
	env  *ops.Env
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"vx.workspace.json":        config,
		"apps/web/package.json":    `{"name": "web"}`,
		"apps/web/src.txt":         "one",
		"apps/api/package.json":    `{"name": "api"}`,
		"apps/api/src.txt":         "api",
		"apps/api/vx.project.json": `{"tasks": {"test": {"command": "echo 'check.c:3:5: error: want 1, got 2' >&2; exit 1"}}}`,
	}
	testtree.Write(t, root, files)
	execute(t, root)
	if err := os.WriteFile(filepath.Join(root, "apps/web/src.txt"), []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	execute(t, root)
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	env := ops.NewEnv(root, m, nil, []string{"PATH=" + os.Getenv("PATH")})
	t.Cleanup(env.Close)
	return &fixture{root: root, env: env}
}

// execute runs build and test across the workspace, as vx run would.
func execute(t *testing.T, root string) {
	t.Helper()
	ctx := context.Background()
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	o := &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build", "test"}}, Continue: true, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	p, err := runner.Prepare(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Execute(ctx, p, o, runner.Output{}); err != nil {
		t.Fatal(err)
	}
}

func TestReadOperations(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	e := f.env

	t.Run("Show a task", func(t *testing.T) {
		out, err := ops.Show(ctx, e, ops.ShowInput{Target: "web#build"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Kind != "task" || len(out.Projects) != 1 || out.Projects[0].Name != "web" || out.Total != 1 {
			t.Fatalf("Show(web#build) = %+v", out)
		}
	})
	t.Run("Show the workspace", func(t *testing.T) {
		out, err := ops.Show(ctx, e, ops.ShowInput{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Kind != "workspace" || out.Total != 2 || out.Root != f.root {
			t.Errorf("Show() = kind %s, %d projects, root %s", out.Kind, out.Total, out.Root)
		}
	})
	t.Run("Info", func(t *testing.T) {
		out, err := ops.Info(ctx, e, ops.InfoInput{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Versions.VX != version.Version {
			t.Errorf("Info versions.vx = %q, want %q", out.Versions.VX, version.Version)
		}
	})
	t.Run("CacheStats", func(t *testing.T) {
		out, err := ops.CacheStats(ctx, e, ops.CacheStatsInput{})
		if err != nil {
			t.Fatal(err)
		}
		// web#build twice (its source changed) and api#build once.
		if out.Entries != 3 || out.Runs24h != 2 || out.Hits24h != 1 || out.Bytes <= 0 {
			t.Errorf("CacheStats = %+v; want 3 entries, 2 runs, 1 hit", out)
		}
	})
	t.Run("Runs", func(t *testing.T) {
		out, err := ops.Runs(ctx, e, ops.RunsInput{})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Runs) != 2 || !out.Runs[0].StartedAt.After(out.Runs[1].StartedAt) && !out.Runs[0].StartedAt.Equal(out.Runs[1].StartedAt) {
			t.Errorf("Runs = %+v, want two, newest first", out.Runs)
		}
	})
	t.Run("Run (latest)", func(t *testing.T) {
		out, err := ops.Run(ctx, e, ops.RunInput{})
		if err != nil {
			t.Fatal(err)
		}
		status := map[string]string{}
		for _, ex := range out.Tasks {
			status[ex.TaskID] = ex.Status + "/" + ex.Cache
		}
		if !out.Found || status["web#build"] != "passed/miss" || status["api#build"] != "passed/hit" || status["api#test"] != "failed/off" {
			t.Errorf("latest run: found %v, tasks %v", out.Found, status)
		}
	})
	t.Run("Failures", func(t *testing.T) {
		out, err := ops.Failures(ctx, e, ops.FailuresInput{})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Found || len(out.Failures) != 1 || out.Failures[0].TaskID != "api#test" || !strings.Contains(out.Failures[0].Output, "want 1, got 2") {
			t.Fatalf("Failures = %+v", out)
		}
		if locs := out.Failures[0].Locations; len(locs) == 0 || !strings.HasSuffix(locs[0].File, "apps/api/check.c") || locs[0].Line != 3 {
			t.Errorf("locations = %+v, want check.c:3", locs)
		}
	})
	t.Run("TaskLog of a failure and of a cached pass", func(t *testing.T) {
		out, err := ops.TaskLog(ctx, e, ops.TaskLogInput{TaskID: "api#test"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Source == nil || *out.Source != "failure" || !strings.Contains(out.Output, "want 1, got 2") {
			t.Errorf("TaskLog(api#test) = %+v", out)
		}
		out, err = ops.TaskLog(ctx, e, ops.TaskLogInput{TaskID: "web#build"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Source == nil || *out.Source != "cache" {
			t.Errorf("TaskLog(web#build) = %+v, want its log from the cache", out)
		}
	})
	t.Run("Why", func(t *testing.T) {
		out, err := ops.Why(ctx, e, ops.WhyInput{TaskID: "web#build"})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Changed || out.FirstRun || out.Diff == nil || !contains(out.Diff.Files.Changed, "src.txt") {
			t.Errorf("Why(web#build) = %+v, diff %+v; want src.txt changed", out, out.Diff)
		}
		out, err = ops.Why(ctx, e, ops.WhyInput{TaskID: "api#build"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Changed || out.Reran {
			t.Errorf("Why(api#build) = %+v, want unchanged and restored", out)
		}
	})
	t.Run("ExplainCacheKey", func(t *testing.T) {
		out, err := ops.ExplainCacheKey(ctx, e, ops.ExplainInput{TaskID: "web#build"})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Found || out.Key == "" || !strings.Contains(out.Command, "src.txt") || out.Files == nil || *out.Files != 1 {
			t.Errorf("ExplainCacheKey = %+v", out)
		}
	})
	t.Run("CompareRuns", func(t *testing.T) {
		out, err := ops.CompareRuns(ctx, e, ops.CompareInput{})
		if err != nil {
			t.Fatal(err)
		}
		changed := map[string]bool{}
		for _, d := range out.Tasks {
			changed[d.TaskID] = d.KeyChanged
		}
		if !out.Found || out.PreviousRunID == "" || !changed["web#build"] || changed["api#build"] || out.Totals.KeysChanged < 1 {
			t.Errorf("CompareRuns = found %v, previous %q, key changes %v", out.Found, out.PreviousRunID, changed)
		}
		// The totals' durations are the runs' wall times, as recorded.
		h, err := e.History(ctx)
		if err != nil {
			t.Fatal(err)
		}
		after, err1 := h.ResolveRun(ctx, out.RunID)
		before, err2 := h.ResolveRun(ctx, out.PreviousRunID)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if out.Totals.DurationMsBefore != before.DurationMs || out.Totals.DurationMsAfter != after.DurationMs {
			t.Errorf("CompareRuns totals %d → %d ms, the runs' wall times %d → %d ms", out.Totals.DurationMsBefore, out.Totals.DurationMsAfter, before.DurationMs, after.DurationMs)
		}
	})
	t.Run("RunTrends", func(t *testing.T) {
		out, err := ops.RunTrends(ctx, e, ops.TrendsInput{})
		if err != nil {
			t.Fatal(err)
		}
		runs := 0
		for _, b := range out.Buckets {
			runs += b.Runs
		}
		if out.Bucket != "hour" || runs != 2 {
			t.Errorf("RunTrends = bucket %q, %d runs; want hour, 2", out.Bucket, runs)
		}
	})
	t.Run("RunHistory of one project", func(t *testing.T) {
		out, err := ops.RunHistory(ctx, e, ops.RunHistoryInput{Project: "web"})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Recent) != 4 {
			t.Errorf("web's recent executions = %d, want 4 (build and test, twice)", len(out.Recent))
		}
		for _, r := range out.Recent {
			if !strings.HasPrefix(r.TaskID, "web#") {
				t.Errorf("RunHistory(web) lists %s", r.TaskID)
			}
		}
	})
	t.Run("Prune dry run removes nothing", func(t *testing.T) {
		out, err := ops.Prune(ctx, e, ops.PruneInput{MaxSize: "1", DryRun: new(true)})
		if err != nil {
			t.Fatal(err)
		}
		if !out.DryRun || len(out.Evicted) != 3 {
			t.Errorf("Prune dry run = %+v, want 3 would-be evictions", out)
		}
		st, err := ops.CacheStats(ctx, e, ops.CacheStatsInput{})
		if err != nil || st.Entries != 3 {
			t.Errorf("after a dry-run prune: %+v, %v; want 3 entries", st, err)
		}
	})
}

func TestReadOperationsRefuse(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		// The operation checks its input before its function runs (Define).
		{"task log of a task name", func() error {
			_, err := operation(t, "getTaskLog").Call(ctx, f.env, &ops.TaskLogInput{TaskID: "web"})
			return err
		}, `half blank (e.g. web#build), not "web"`},
		{"why of a task name", func() error {
			_, err := operation(t, "whyDidThisRerun").Call(ctx, f.env, &ops.WhyInput{TaskID: "  #build"})
			return err
		}, `half blank (e.g. web#build), not "  #build"`},
		{"why of an unknown task", func() error { _, err := ops.Why(ctx, f.env, ops.WhyInput{TaskID: "nope#build"}); return err }, "nope#build"},
		{"show of an unknown project", func() error { _, err := ops.Show(ctx, f.env, ops.ShowInput{Target: "nope"}); return err }, "nope"},
		{"prune with a bad size", func() error {
			_, err := ops.Prune(ctx, f.env, ops.PruneInput{MaxSize: "lots", DryRun: new(true)})
			return err
		}, "lots"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a refusal naming %q", err, tc.want)
			}
			var r *opkit.Refusal
			if strings.Contains(tc.name, "task name") && (!errors.As(err, &r) || r.Arg != "taskId") {
				t.Errorf("err is %T %v, want a *opkit.Refusal of taskId", err, err)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// operation is the operation named name.
func operation(t *testing.T, name string) *ops.Operation {
	t.Helper()
	for _, op := range ops.Operations() {
		if op.Name == name {
			return op
		}
	}
	t.Fatalf("no operation %s", name)
	return nil
}
