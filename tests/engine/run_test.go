//go:build !windows

package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

var basicBuilds = []string{"api#build", "core#build", "docs#build", "util#build", "web#build"}

var basicDists = []string{"packages/*/dist/*", "apps/*/dist/*"}

func TestColdRun(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	s, r := runJSON(t, ws, nil, 0, "build")

	// Every field a client relies on is present, whatever its value.
	var raw map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"runId", "ok", "exitCode", "startedAt", "durationMs", "tasks"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("summary lacks %q", k)
		}
	}
	for _, row := range raw["tasks"].([]any) {
		m := row.(map[string]any)
		for _, k := range []string{"taskId", "status", "cache", "key", "durationMs", "exitCode"} {
			if _, ok := m[k]; !ok {
				t.Errorf("task row %v lacks %q", m["taskId"], k)
			}
		}
	}

	if !s.OK || s.ExitCode != 0 || s.RunID == "" || s.StartedAt.IsZero() {
		t.Errorf("summary: ok=%v exitCode=%d runId=%q startedAt=%v", s.OK, s.ExitCode, s.RunID, s.StartedAt)
	}
	if got := s.ids(); !reflect.DeepEqual(got, basicBuilds) {
		t.Fatalf("tasks = %v, want %v", got, basicBuilds)
	}
	keys := map[string]bool{}
	for _, row := range s.Tasks {
		if row.Status != "passed" || row.Cache != "miss" || row.ExitCode == nil || *row.ExitCode != 0 || row.Key == "" {
			t.Errorf("%s: status %s cache %s exitCode %v key %q; want passed, miss, 0, a key", row.TaskID, row.Status, row.Cache, row.ExitCode, row.Key)
		}
		keys[row.Key] = true
	}
	if len(keys) != len(s.Tasks) {
		t.Errorf("tasks share keys: %v", s.keys())
	}
	for _, name := range []string{"core", "util", "web", "api", "docs"} {
		// The human output goes to stderr under --format json.
		if !strings.Contains(r.Stderr, name+"#build: built "+name) {
			t.Errorf("stderr lacks the prefixed line of %s#build\n%s", name, r)
		}
	}
	// Dependencies ran first: web's output holds only its own source, but
	// it must exist after util's.
	if got := readFile(t, filepath.Join(ws, "apps/web/dist/index.js")); got != readFile(t, filepath.Join(ws, "apps/web/src/web.js")) {
		t.Errorf("apps/web/dist/index.js = %q", got)
	}
}

func TestFullHitRestoresOutputsAndReplaysLog(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	cold, _ := runJSON(t, ws, nil, 0, "build")
	want := snapshot(t, ws, basicDists...)
	if len(want) != 5 {
		t.Fatalf("cold run produced %d outputs, want 5: %v", len(want), want)
	}

	removeAll(t, ws, "packages/*/dist", "apps/*/dist")
	hit, r := runJSON(t, ws, nil, 0, "build")
	for _, row := range hit.Tasks {
		if row.Cache != "hit" || row.Status != "passed" || row.Key != cold.keys()[row.TaskID] {
			t.Errorf("%s: cache %s status %s key %s; want a hit on %s", row.TaskID, row.Cache, row.Status, row.Key, cold.keys()[row.TaskID])
		}
	}
	if got := snapshot(t, ws, basicDists...); !reflect.DeepEqual(got, want) {
		t.Errorf("restored outputs = %v, want %v", got, want)
	}
	if !strings.Contains(r.Stderr, "core#build: built core") {
		t.Errorf("the log of core#build was not replayed\n%s", r)
	}

	// The same in the human form, on stdout.
	removeAll(t, ws, "packages/*/dist", "apps/*/dist")
	h := vxOK(t, ws, nil, "run", "build")
	for _, name := range []string{"core", "util", "web", "api", "docs"} {
		if !strings.Contains(h.Stdout, name+"#build: built "+name) {
			t.Errorf("human output lacks the replayed log of %s#build\n%s", name, h)
		}
	}
	if !strings.Contains(h.Stdout, "5 cached") {
		t.Errorf("footer does not count 5 cached tasks\n%s", h)
	}
	if got := snapshot(t, ws, basicDists...); !reflect.DeepEqual(got, want) {
		t.Errorf("restored outputs = %v, want %v", got, want)
	}
}

// whyAnswer is the part of `vx why --format json` the tests read.
type whyAnswer struct {
	TaskID   string `json:"taskId"`
	Cache    string `json:"cache"`
	Changed  bool   `json:"changed"`
	FirstRun bool   `json:"firstRun"`
	Diff     *struct {
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

type setDiff struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

func TestEditReRunsProjectAndDependents(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		edit   string // file edited, relative to the workspace
		file   string // the same, relative to its project
		owner  string // the task whose own inputs moved
		reran  []string
		leaf   string // a dependent whose why names owner among its roots
		upNext string // the dependent's direct upstream that moved
	}{
		{"leaf's upstream", "packages/util/src/util.js", "src/util.js", "util#build", []string{"util#build", "web#build"}, "web#build", "util#build"},
		{"root of the graph", "packages/core/src/core.js", "src/core.js", "core#build", []string{"api#build", "core#build", "util#build", "web#build"}, "web#build", "util#build"},
		{"leaf", "apps/docs/src/docs.js", "src/docs.js", "docs#build", []string{"docs#build"}, "", ""},
		{"package.json input", "apps/api/package.json", "package.json", "api#build", []string{"api#build"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "basic")
			before, _ := runJSON(t, ws, nil, 0, "build")
			p := filepath.Join(ws, filepath.FromSlash(tc.edit))
			b := readFile(t, p)
			if strings.HasSuffix(tc.edit, ".json") {
				b = strings.Replace(b, `"version": "1.0.0"`, `"version": "1.0.1"`, 1)
			} else {
				b += "// edited\n"
			}
			if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
			after, _ := runJSON(t, ws, nil, 0, "build")
			var reran []string
			for _, row := range after.Tasks {
				prev := before.keys()[row.TaskID]
				switch {
				case row.Cache == "miss" && row.Key != prev:
					reran = append(reran, row.TaskID)
				case row.Cache == "hit" && row.Key == prev:
				default:
					t.Errorf("%s: cache %s, key %s (before %s): a miss must come with a new key, a hit with the same", row.TaskID, row.Cache, row.Key, prev)
				}
			}
			sort.Strings(reran)
			if !reflect.DeepEqual(reran, tc.reran) {
				t.Errorf("re-ran %v, want %v", reran, tc.reran)
			}

			var why whyAnswer
			answerJSON(t, ws, &why, "why", tc.owner)
			if why.Diff == nil || !contains(why.Diff.Files.Changed, tc.file) {
				t.Errorf("vx why %s: diff.files.changed does not name %s: %+v", tc.owner, tc.file, why.Diff)
			}
			if why.FirstRun || !why.Changed {
				t.Errorf("vx why %s: firstRun=%v changed=%v", tc.owner, why.FirstRun, why.Changed)
			}
			if tc.leaf == "" {
				return
			}
			var leaf whyAnswer
			answerJSON(t, ws, &leaf, "why", tc.leaf)
			if leaf.Diff == nil || !contains(leaf.Diff.Upstream.Changed, tc.upNext) {
				t.Errorf("vx why %s: diff.upstream.changed does not name %s: %+v", tc.leaf, tc.upNext, leaf.Diff)
			}
			var roots []string
			for _, r := range leaf.Roots {
				roots = append(roots, r.TaskID)
				if r.TaskID == tc.owner && (r.Diff == nil || !contains(r.Diff.Files.Changed, tc.file)) {
					t.Errorf("vx why %s: root %s does not name %s: %+v", tc.leaf, r.TaskID, tc.file, r.Diff)
				}
			}
			if !reflect.DeepEqual(roots, []string{tc.owner}) {
				t.Errorf("vx why %s: roots = %v, want [%s]", tc.leaf, roots, tc.owner)
			}
		})
	}
}

func TestFailureBlocksDependents(t *testing.T) {
	t.Parallel()
	type want struct{ status, blockedBy string }
	cases := []struct {
		name  string
		args  []string
		want  map[string]want
		ran   []string // marker files that must exist
		noRun []string // marker files that must not
	}{
		{
			name: "stop at the first failure",
			args: []string{"build"},
			want: map[string]want{
				"bad#build": {"failed", ""}, "after#build": {"blocked", "bad#build"},
				"gate#build": {"passed", ""}, "late#build": {"skipped", ""},
			},
			noRun: []string{"after.ran", "late.ran"},
		},
		{
			name: "continue",
			args: []string{"build", "--continue"},
			want: map[string]want{
				"bad#build": {"failed", ""}, "after#build": {"blocked", "bad#build"},
				"gate#build": {"passed", ""}, "late#build": {"passed", ""},
			},
			ran:   []string{"late.ran"},
			noRun: []string{"after.ran"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "fail")
			s, r := runJSON(t, ws, nil, 1, append(tc.args, "--concurrency", "2")...)
			if s.OK {
				t.Errorf("ok = true for a failed run")
			}
			for id, w := range tc.want {
				row := s.row(t, id)
				if row.Status != w.status {
					t.Errorf("%s: status %s, want %s (reason %q)", id, row.Status, w.status, row.Reason)
				}
				if w.blockedBy != "" && !reflect.DeepEqual(row.BlockedBy, []string{w.blockedBy}) {
					t.Errorf("%s: blockedBy %v, want [%s]", id, row.BlockedBy, w.blockedBy)
				}
			}
			bad := s.row(t, "bad#build")
			if bad.ExitCode == nil || *bad.ExitCode != 3 || bad.Reason == "" {
				t.Errorf("bad#build: exitCode %v reason %q, want 3 and a reason", bad.ExitCode, bad.Reason)
			}
			if !strings.Contains(r.Stderr, "bad#build: bad is failing") {
				t.Errorf("the failing task's output is not shown\n%s", r)
			}
			for _, f := range tc.ran {
				if !exists(filepath.Join(ws, f)) {
					t.Errorf("%s missing: the task did not run", f)
				}
			}
			for _, f := range tc.noRun {
				if exists(filepath.Join(ws, f)) {
					t.Errorf("%s exists: a blocked or skipped task ran", f)
				}
			}
			// The history agrees with the summary.
			var last struct {
				Run struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"run"`
				Tasks []struct {
					TaskID    string   `json:"taskId"`
					Status    string   `json:"status"`
					BlockedBy []string `json:"blockedBy"`
				} `json:"tasks"`
			}
			answerJSON(t, ws, &last, "last")
			if last.Run.ID != s.RunID || last.Run.Status != "failed" {
				t.Errorf("vx last: run %s status %s, want %s failed", last.Run.ID, last.Run.Status, s.RunID)
			}
			for _, ex := range last.Tasks {
				if w, ok := tc.want[ex.TaskID]; ok && ex.Status != w.status {
					t.Errorf("history: %s status %s, want %s", ex.TaskID, ex.Status, w.status)
				}
			}
		})
	}
}

// TestNoTaskStartsAfterFailure: without --continue, a task that had not
// started when another failed must not start. One worker makes the order
// deterministic: gate records whether bad's failure preceded its start.
func TestNoTaskStartsAfterFailure(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "fail")
	writeFiles(t, ws, map[string]string{"pkgs/gate/package.json": `{ "name": "gate", "scripts": { "build": "if [ -e ../../bad.failed ]; then touch ../../gate.after-failure; fi; echo gate ran" } }`})
	s, _ := runJSON(t, ws, nil, 1, "build", "--concurrency", "1")
	gate := s.row(t, "gate#build")
	if exists(filepath.Join(ws, "gate.after-failure")) {
		t.Errorf("gate#build started after bad#build had failed (status %s, reason %q); without --continue it must be skipped", gate.Status, gate.Reason)
	}
	if exists(filepath.Join(ws, "late.ran")) {
		t.Errorf("late#build ran after bad#build had failed")
	}
}
