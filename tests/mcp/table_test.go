//go:build !windows

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/tests/internal/harness"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// history is what buildHistory recorded in a workspace.
type history struct {
	root      string
	secret    string
	firstRun  string // build --continue: lib, app pass; broken fails; dependent blocked
	slowRun   string // slow#slow timed out
	secretRun string // sec#reveal passed, sec#leak failed, both printing the secret
	buildRun  string // build again after an edit of pkgs/lib/src/lib.txt
	libKey    string // lib#build's key in buildRun
}

// buildHistory runs vx in root so that its history holds passes, failures
// with source locations, blocked dependents, a flaky task (one key both
// passed and failed), a timeout, a secret and a re-run caused by an edit.
func buildHistory(t *testing.T, root string) *history {
	t.Helper()
	h := &history{root: root, secret: fmt.Sprintf("s3cr3t-%d-mcp", time.Now().UnixNano())}
	env := []string{"TOKEN=" + h.secret}
	h.firstRun = vxRun(t, root, env, 1, "build", "--continue").RunID
	for i := range 4 {
		vxRun(t, root, env, i%2, "flaky", "--force") // run 1 passes, 2 fails, …
	}
	s := vxRun(t, root, env, 1, "slow")
	h.slowRun = s.RunID
	h.secretRun = vxRun(t, root, env, 1, "reveal", "leak").RunID
	harness.WriteFile(t, filepath.Join(root, "pkgs/lib/src/lib.txt"), "lib v2\n")
	b := vxRun(t, root, env, 1, "build", "--continue")
	h.buildRun = b.RunID
	for _, r := range b.Tasks {
		if r.TaskID == "lib#build" {
			h.libKey = r.Key
		}
	}
	return h
}

// Shapes of the answers, as an agent reads them.
type (
	showOut struct {
		Root     string `json:"root"`
		Projects []struct {
			Name  string `json:"name"`
			Tasks []struct {
				TaskID  string            `json:"taskId"`
				Command string            `json:"command"`
				ExecEnv map[string]string `json:"execEnv"`
			} `json:"tasks"`
		} `json:"projects"`
	}
	execRow struct {
		RunID     string   `json:"runId"`
		TaskID    string   `json:"taskId"`
		Task      string   `json:"task"`
		Status    string   `json:"status"`
		ExitCode  *int     `json:"exitCode"`
		BlockedBy []string `json:"blockedBy"`
		TimedOut  bool     `json:"timedOut"`
	}
	taskStat struct {
		TaskID          string  `json:"taskId"`
		Flaky           bool    `json:"flaky"`
		MaxPeakRSSBytes int64   `json:"maxPeakRssBytes"`
		SuccessRate     float64 `json:"successRate"`
		P50Ms           int64   `json:"p50Ms"`
	}
	historyOut struct {
		Limit  int        `json:"limit"`
		Note   string     `json:"note"`
		Recent []execRow  `json:"recent"`
		Tasks  []taskStat `json:"tasks"`
	}
	location struct {
		File string `json:"file"`
		Line int    `json:"line"`
		Col  int    `json:"col"`
	}
	failuresOut struct {
		RunID    string `json:"runId"`
		Found    bool   `json:"found"`
		Failures []struct {
			TaskID    string     `json:"taskId"`
			ExitCode  *int       `json:"exitCode"`
			TimedOut  bool       `json:"timedOut"`
			Output    string     `json:"output"`
			Locations []location `json:"locations"`
		} `json:"failures"`
		Blocked []string `json:"blocked"`
	}
	setDiff struct {
		Added, Removed, Changed []string
	}
	whyOut struct {
		TaskID  string `json:"taskId"`
		RunID   string `json:"runId"`
		Changed bool   `json:"changed"`
		Diff    *struct {
			Files    setDiff `json:"files"`
			Upstream setDiff `json:"upstream"`
		} `json:"diff"`
		Roots []struct {
			TaskID string `json:"taskId"`
			Diff   *struct {
				Files setDiff `json:"files"`
			} `json:"diff"`
		} `json:"roots"`
	}
	taskLogOut struct {
		RunID  string  `json:"runId"`
		TaskID string  `json:"taskId"`
		Status string  `json:"status"`
		Source *string `json:"source"`
		Output string  `json:"output"`
	}
)

func (h historyOut) stat(id string) *taskStat {
	for i := range h.Tasks {
		if h.Tasks[i].TaskID == id {
			return &h.Tasks[i]
		}
	}
	return nil
}

// requiredTools are the tools every workspace (mcp.run absent) lists.
var requiredTools = []string{"listTasks", "getConfig", "getWorkspaceInfo", "getCacheStats", "getRunHistory", "explainCacheKey",
	"whyDidThisRerun", "pruneCache", "getTaskLog", "getFailures", "compareRuns", "runTrends", "planTasks", "runTasks", "getLastRun", "checkLock"}

// step is one exchange of the table: a tool call and what the answer must say.
type step struct {
	name  string
	tool  string
	args  map[string]any
	check func(t *testing.T, h *history, a answer)
}

func steps() []step {
	return []step{
		{"listTasks everything", "listTasks", map[string]any{}, func(t *testing.T, h *history, a answer) {
			var out showOut
			a.structured(t, &out)
			var names []string
			for _, p := range out.Projects {
				names = append(names, p.Name)
			}
			for _, want := range []string{"lib", "app", "broken", "dependent", "flaky", "slow", "sec", "nap"} {
				if !slices.Contains(names, want) {
					t.Errorf("listTasks has no project %s (projects: %v)", want, names)
				}
			}
		}},
		{"listTasks one project", "listTasks", map[string]any{"project": "lib"}, func(t *testing.T, h *history, a answer) {
			var out showOut
			a.structured(t, &out)
			if len(out.Projects) != 1 || out.Projects[0].Name != "lib" {
				t.Errorf("listTasks project lib answered %d projects: %s", len(out.Projects), a.text)
			}
		}},
		{"getConfig masks the secret env", "getConfig", map[string]any{"target": "sec#reveal"}, func(t *testing.T, h *history, a answer) {
			var out showOut
			a.structured(t, &out)
			found := false
			for _, p := range out.Projects {
				for _, tk := range p.Tasks {
					if tk.TaskID == "sec#reveal" {
						found = true
						if tk.ExecEnv["TOKEN"] != "***" {
							t.Errorf("sec#reveal execEnv TOKEN = %q, want ***", tk.ExecEnv["TOKEN"])
						}
					}
				}
			}
			if !found {
				t.Errorf("getConfig sec#reveal does not show the task: %s", a.text)
			}
		}},
		{"getWorkspaceInfo", "getWorkspaceInfo", map[string]any{}, func(t *testing.T, h *history, a answer) {
			var out struct {
				Root         string   `json:"root"`
				Projects     int      `json:"projects"`
				ConfigErrors []string `json:"configErrors"`
				Flaky        []string `json:"flakyTasks"`
			}
			a.structured(t, &out)
			if out.Projects != 8 || len(out.ConfigErrors) != 0 {
				t.Errorf("getWorkspaceInfo: projects %d (want 8), configErrors %v", out.Projects, out.ConfigErrors)
			}
			if !slices.Equal(out.Flaky, []string{"flaky#flaky"}) {
				t.Errorf("getWorkspaceInfo flakyTasks = %v, want [flaky#flaky]", out.Flaky)
			}
		}},
		{"getCacheStats", "getCacheStats", map[string]any{}, func(t *testing.T, h *history, a answer) {
			var out struct {
				Entries int   `json:"entries"`
				Bytes   int64 `json:"bytes"`
				Runs24h int   `json:"runs24h"`
			}
			a.structured(t, &out)
			if out.Entries == 0 || out.Bytes == 0 || out.Runs24h < 8 {
				t.Errorf("getCacheStats: entries %d, bytes %d, runs24h %d; want entries, bytes and ≥ 8 runs", out.Entries, out.Bytes, out.Runs24h)
			}
		}},
		{"getCacheStats scope", "getCacheStats", map[string]any{"scope": map[string]any{"project": "lib"}}, func(t *testing.T, h *history, a answer) {
			var out struct {
				Project string `json:"project"`
				Entries int    `json:"entries"`
			}
			a.structured(t, &out)
			if out.Project != "lib" || out.Entries == 0 {
				t.Errorf("getCacheStats scope lib: %s", a.text)
			}
		}},
		{"getRunHistory", "getRunHistory", map[string]any{}, func(t *testing.T, h *history, a answer) {
			var out historyOut
			a.structured(t, &out)
			if out.Limit != 50 {
				t.Errorf("default limit %d, want 50", out.Limit)
			}
			for _, s := range out.Tasks {
				if s.Flaky != (s.TaskID == "flaky#flaky") {
					t.Errorf("%s flaky = %v; only flaky#flaky had one key pass and fail", s.TaskID, s.Flaky)
				}
			}
			if s := out.stat("flaky#flaky"); s == nil || !s.Flaky {
				t.Errorf("flaky#flaky is not reported flaky: %+v", s)
			}
			if s := out.stat("lib#build"); s == nil || s.MaxPeakRSSBytes <= 0 {
				t.Errorf("lib#build executed but shows no maxPeakRssBytes: %+v", s)
			}
			var timedOut, blocked bool
			for _, r := range out.Recent {
				if r.TaskID == "slow#slow" && r.TimedOut {
					timedOut = true
				}
				if r.TaskID == "dependent#build" && slices.Contains(r.BlockedBy, "broken#build") {
					blocked = true
				}
				if r.TaskID == "broken#build" && (r.ExitCode == nil || *r.ExitCode != 1) {
					t.Errorf("broken#build row exit code %v, want 1", r.ExitCode)
				}
			}
			if !timedOut {
				t.Errorf("no recent row says slow#slow timedOut")
			}
			if !blocked {
				t.Errorf("no recent row says dependent#build blockedBy broken#build")
			}
		}},
		{"getRunHistory task and limit", "getRunHistory", map[string]any{"task": "flaky", "limit": 3}, func(t *testing.T, h *history, a answer) {
			var out historyOut
			a.structured(t, &out)
			if out.Limit != 3 || len(out.Recent) != 3 {
				t.Errorf("limit 3: answer limit %d with %d rows", out.Limit, len(out.Recent))
			}
			for _, r := range out.Recent {
				if r.Task != "flaky" {
					t.Errorf("task flaky answered a row of %s", r.TaskID)
				}
			}
		}},
		{"explainCacheKey", "explainCacheKey", map[string]any{"taskId": "lib#build"}, func(t *testing.T, h *history, a answer) {
			var out struct {
				Found   bool   `json:"found"`
				Key     string `json:"key"`
				Command string `json:"command"`
			}
			a.structured(t, &out)
			if !out.Found || out.Key != h.libKey || !strings.Contains(out.Command, "lib built") {
				t.Errorf("explainCacheKey lib#build: %s; want key %s", a.text, h.libKey)
			}
		}},
		{"whyDidThisRerun names the edited file", "whyDidThisRerun", map[string]any{"taskId": "lib#build"}, func(t *testing.T, h *history, a answer) {
			var out whyOut
			a.structured(t, &out)
			if !out.Changed || out.RunID != h.buildRun || out.Diff == nil || !slices.Contains(out.Diff.Files.Changed, "src/lib.txt") {
				t.Errorf("whyDidThisRerun lib#build does not name src/lib.txt in run %s: %s", h.buildRun, a.text)
			}
		}},
		{"whyDidThisRerun finds the upstream root", "whyDidThisRerun", map[string]any{"taskId": "app#build", "runId": "BUILDRUN"}, func(t *testing.T, h *history, a answer) {
			var out whyOut
			a.structured(t, &out)
			ok := false
			for _, r := range out.Roots {
				if r.TaskID == "lib#build" && r.Diff != nil && slices.Contains(r.Diff.Files.Changed, "src/lib.txt") {
					ok = true
				}
			}
			if !out.Changed || !ok {
				t.Errorf("whyDidThisRerun app#build does not name root lib#build and src/lib.txt: %s", a.text)
			}
		}},
		{"pruneCache is a dry run", "pruneCache", map[string]any{"olderThan": "1s"}, func(t *testing.T, h *history, a answer) {
			var out struct {
				DryRun  bool `json:"dryRun"`
				Evicted []struct {
					Key string `json:"key"`
				} `json:"evicted"`
			}
			a.structured(t, &out)
			if !out.DryRun {
				t.Errorf("pruneCache without dryRun was not a dry run: %s", a.text)
			}
		}},
		{"getTaskLog of a failure", "getTaskLog", map[string]any{"taskId": "broken#build"}, func(t *testing.T, h *history, a answer) {
			var out taskLogOut
			a.structured(t, &out)
			if out.Source == nil || *out.Source != "failure" || !strings.Contains(out.Output, "frobnicate") || out.RunID != h.buildRun {
				t.Errorf("getTaskLog broken#build: %s", a.text)
			}
		}},
		{"getTaskLog masks a failure's secret", "getTaskLog", map[string]any{"taskId": "sec#leak", "runId": "SECRETRUN"}, func(t *testing.T, h *history, a answer) {
			var out taskLogOut
			a.structured(t, &out)
			if !strings.Contains(out.Output, "about to fail with ***") {
				t.Errorf("getTaskLog sec#leak: want the masked line, got %q", out.Output)
			}
		}},
		{"getTaskLog of a cached pass", "getTaskLog", map[string]any{"taskId": "sec#reveal"}, func(t *testing.T, h *history, a answer) {
			var out taskLogOut
			a.structured(t, &out)
			if out.Source == nil || *out.Source != "cache" || !strings.Contains(out.Output, "the token is ***") {
				t.Errorf("getTaskLog sec#reveal: %s", a.text)
			}
		}},
		{"getFailures of a build", "getFailures", map[string]any{"runId": "BUILDRUN"}, func(t *testing.T, h *history, a answer) {
			var out failuresOut
			a.structured(t, &out)
			if !out.Found || out.RunID != h.buildRun || len(out.Failures) != 1 || out.Failures[0].TaskID != "broken#build" {
				t.Fatalf("getFailures %s: %s", h.buildRun, a.text)
			}
			f := out.Failures[0]
			if f.ExitCode == nil || *f.ExitCode != 1 || f.TimedOut {
				t.Errorf("broken#build exitCode %v timedOut %v", f.ExitCode, f.TimedOut)
			}
			if !slices.Contains(out.Blocked, "dependent#build") {
				t.Errorf("getFailures blocked = %v, want dependent#build", out.Blocked)
			}
			dir := filepath.Join(h.root, "pkgs", "broken", "src")
			want := []location{{filepath.Join(dir, "main.go"), 12, 5}, {filepath.Join(dir, "index.ts"), 3, 7}}
			for _, w := range want {
				if !slices.Contains(f.Locations, w) {
					t.Errorf("getFailures locations %+v lack %+v", f.Locations, w)
				}
			}
			for _, l := range f.Locations {
				if !filepath.IsAbs(l.File) || l.Line <= 0 {
					t.Errorf("location %+v: want an absolute file and a line", l)
				}
			}
		}},
		{"getFailures of a timeout", "getFailures", map[string]any{"runId": "SLOWRUN"}, func(t *testing.T, h *history, a answer) {
			var out failuresOut
			a.structured(t, &out)
			if len(out.Failures) != 1 || out.Failures[0].TaskID != "slow#slow" || !out.Failures[0].TimedOut {
				t.Errorf("getFailures of the slow run: %s", a.text)
			}
		}},
		{"getFailures latest", "getFailures", map[string]any{}, func(t *testing.T, h *history, a answer) {
			var out failuresOut
			a.structured(t, &out)
			if out.RunID != h.buildRun {
				t.Errorf("getFailures default run %s, want the latest failed run %s", out.RunID, h.buildRun)
			}
		}},
		{"compareRuns", "compareRuns", map[string]any{"runId": "BUILDRUN"}, func(t *testing.T, h *history, a answer) {
			var out struct {
				RunID         string `json:"runId"`
				PreviousRunID string `json:"previousRunId"`
				Found         bool   `json:"found"`
				Tasks         []struct {
					TaskID     string `json:"taskId"`
					Change     string `json:"change"`
					KeyChanged bool   `json:"keyChanged"`
				} `json:"tasks"`
			}
			a.structured(t, &out)
			if !out.Found || out.RunID != h.buildRun || out.PreviousRunID != h.secretRun {
				t.Errorf("compareRuns %s: run %s previous %s, want previous %s", h.buildRun, out.RunID, out.PreviousRunID, h.secretRun)
			}
		}},
		{"runTrends", "runTrends", map[string]any{"bucket": "day", "limit": 2}, func(t *testing.T, h *history, a answer) {
			var out struct {
				Bucket  string `json:"bucket"`
				Limit   int    `json:"limit"`
				Buckets []struct {
					Runs       int `json:"runs"`
					FailedRuns int `json:"failedRuns"`
				} `json:"buckets"`
			}
			a.structured(t, &out)
			runs, failed := 0, 0
			for _, b := range out.Buckets {
				runs += b.Runs
				failed += b.FailedRuns
			}
			if out.Bucket != "day" || out.Limit != 2 || runs < 8 || failed < 6 {
				t.Errorf("runTrends day: %s (want ≥ 8 runs, ≥ 6 failed)", a.text)
			}
		}},
		{"planTasks", "planTasks", map[string]any{"tasks": []string{"build"}, "filter": "app"}, func(t *testing.T, h *history, a answer) {
			var out struct {
				ExitCode int `json:"exitCode"`
				Plan     struct {
					Tasks []struct {
						TaskID string `json:"taskId"`
						Cache  string `json:"cache"`
						Key    string `json:"key"`
					} `json:"tasks"`
					Predicted struct {
						CriticalPath []string `json:"criticalPath"`
					} `json:"predicted"`
				} `json:"plan"`
			}
			a.structured(t, &out)
			found := false
			for _, tk := range out.Plan.Tasks {
				if tk.TaskID == "lib#build" {
					found = true
					if tk.Cache != "hit" || tk.Key != h.libKey {
						t.Errorf("plan lib#build cache %s key %s, want a hit on %s", tk.Cache, tk.Key, h.libKey)
					}
				}
			}
			if out.ExitCode != 0 || !found {
				t.Errorf("planTasks build --filter app: %s", a.text)
			}
		}},
		{"checkLock", "checkLock", map[string]any{}, nil},
		{"runTasks", "runTasks", map[string]any{"tasks": []string{"lib#build", "sec#reveal"}}, func(t *testing.T, h *history, a answer) {
			var out struct {
				ExitCode int `json:"exitCode"`
				Summary  struct {
					RunID string `json:"runId"`
					Tasks []struct {
						TaskID string `json:"taskId"`
						Status string `json:"status"`
						Cache  string `json:"cache"`
					} `json:"tasks"`
				} `json:"summary"`
			}
			a.structured(t, &out)
			if out.ExitCode != 0 || out.Summary.RunID == "" || len(out.Summary.Tasks) != 2 {
				t.Errorf("runTasks: %s", a.text)
			}
		}},
		{"runTasks of a failing task that prints the secret", "runTasks", map[string]any{"tasks": []string{"sec#leak"}}, func(t *testing.T, h *history, a answer) {
			var out runTasksOut
			a.structured(t, &out)
			if out.ExitCode != 1 || !slices.Equal(out.ids(), []string{"sec#leak"}) || out.Summary.Tasks[0].Status != "failed" {
				t.Errorf("runTasks sec#leak: %s", a.text)
			}
		}},
		{"getFailures of the agent's run is masked", "getFailures", map[string]any{}, func(t *testing.T, h *history, a answer) {
			var out failuresOut
			a.structured(t, &out)
			if len(out.Failures) != 1 || out.Failures[0].TaskID != "sec#leak" || !strings.Contains(out.Failures[0].Output, "about to fail with") {
				t.Errorf("getFailures after runTasks sec#leak: %s", a.text)
			}
		}},
		{"getLastRun is the agent's last run", "getLastRun", map[string]any{}, func(t *testing.T, h *history, a answer) {
			var out struct {
				Found bool `json:"found"`
				Run   struct {
					Command string `json:"command"`
				} `json:"run"`
				Tasks []execRow `json:"tasks"`
			}
			a.structured(t, &out)
			if !out.Found || len(out.Tasks) != 1 || !strings.Contains(out.Run.Command, "sec#leak") {
				t.Errorf("getLastRun: %s", a.text)
			}
		}},
	}
}

// TestToolTable runs every tool with valid arguments on a workspace with a
// rich history, once straight over HTTP and once through the shim, and
// checks that no answer, resource or prompt carries the secret's value.
func TestToolTable(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			root := workspace(t, "hist")
			h := buildHistory(t, root)
			// The shim's daemon knows the secret (the agent was started
			// with it); the HTTP one does not: both must answer masked.
			var env []string
			if tr.name == "shim" {
				env = append(env, "TOKEN="+h.secret)
			}
			cs := tr.connect(t, root, nil, env...)
			tools := toolNames(t, cs)
			for _, name := range requiredTools {
				tl, ok := tools[name]
				if !ok {
					t.Errorf("tools/list lacks %s", name)
					continue
				}
				if tl.OutputSchema == nil || tl.InputSchema == nil || tl.Annotations == nil {
					t.Errorf("%s: inputSchema, outputSchema and annotations must all be present", name)
					continue
				}
				readOnly := name != "pruneCache" && name != "runTasks"
				if tl.Annotations.ReadOnlyHint != readOnly {
					t.Errorf("%s readOnlyHint %v, want %v", name, tl.Annotations.ReadOnlyHint, readOnly)
				}
				if !readOnly && (tl.Annotations.DestructiveHint == nil || !*tl.Annotations.DestructiveHint) {
					t.Errorf("%s: want destructiveHint true", name)
				}
			}
			ids := strings.NewReplacer("BUILDRUN", h.buildRun, "SLOWRUN", h.slowRun, "SECRETRUN", h.secretRun)
			for _, s := range steps() {
				t.Run(s.name, func(t *testing.T) {
					args := map[string]any{}
					for k, v := range s.args {
						if str, ok := v.(string); ok {
							v = ids.Replace(str)
						}
						args[k] = v
					}
					a := callOK(t, cs, s.tool, args)
					if strings.Contains(string(a.raw), h.secret) {
						t.Errorf("%s answer carries the secret's value:\n%s", s.tool, a.raw)
					}
					if s.check != nil {
						s.check(t, h, a)
					}
				})
			}
			t.Run("optional tools", func(t *testing.T) {
				if _, ok := tools["searchDocs"]; ok {
					callOK(t, cs, "searchDocs", map[string]any{"query": "cache"})
				}
				if _, ok := tools["planInit"]; ok {
					callOK(t, cs, "planInit", map[string]any{})
				}
			})
			t.Run("resources and prompts", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				for _, uri := range []string{"vx://workspace/config", "vx://runs/latest", "vx://tasks/" + url.PathEscape("sec#leak") + "/log"} {
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
					if err != nil {
						t.Errorf("resources/read %s: %v", uri, err)
						continue
					}
					b, _ := json.Marshal(res)
					if len(res.Contents) == 0 || res.Contents[0].Text == "" {
						t.Errorf("resources/read %s: empty: %s", uri, b)
					}
					if strings.Contains(string(b), h.secret) {
						t.Errorf("resource %s carries the secret's value", uri)
					}
				}
				for _, p := range []struct {
					name string
					args map[string]string
					want string
				}{
					{"diagnose-failure", map[string]string{"runId": h.secretRun}, "sec#leak"},
					{"explain-rerun", map[string]string{"taskId": "lib#build", "runId": h.buildRun}, "src/lib.txt"},
				} {
					res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.name, Arguments: p.args})
					if err != nil {
						t.Errorf("prompts/get %s: %v", p.name, err)
						continue
					}
					b, _ := json.Marshal(res)
					if !strings.Contains(string(b), p.want) {
						t.Errorf("prompt %s does not mention %s: %s", p.name, p.want, b)
					}
					if strings.Contains(string(b), h.secret) {
						t.Errorf("prompt %s carries the secret's value", p.name)
					}
				}
			})
		})
	}
}
