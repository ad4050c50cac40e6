//go:build !windows

package engine_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// plan is the part of `vx run --dry=json` the tests read.
type plan struct {
	Tasks []struct {
		TaskID string `json:"taskId"`
		Cache  string `json:"cache"`
		Key    string `json:"key"`
		P50Ms  *int64 `json:"p50Ms"`
	} `json:"tasks"`
	Affected *struct {
		Projects map[string]string `json:"projects"`
	} `json:"affected"`
}

func (p *plan) ids() []string {
	var out []string
	for _, t := range p.Tasks {
		out = append(out, t.TaskID)
	}
	sort.Strings(out)
	return out
}

func dryRun(t *testing.T, ws string, args ...string) *plan {
	t.Helper()
	var p plan
	r := vxOK(t, ws, nil, append(append([]string{"run"}, args...), "--dry=json")...)
	decodeOnly(t, r, &p)
	return &p
}

// showProjects lists the project names `vx show` selects.
func showProjects(t *testing.T, ws string, args ...string) []string {
	t.Helper()
	var show struct {
		Projects []struct {
			Name string `json:"name"`
		} `json:"projects"`
	}
	answerJSON(t, ws, &show, append([]string{"show"}, args...)...)
	var out []string
	for _, p := range show.Projects {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

func TestFilters(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	cases := []struct {
		filters  []string
		projects []string // selected
		tasks    []string // the graph: selected builds and their ^build
	}{
		{[]string{"web"}, []string{"web"}, []string{"core#build", "util#build", "web#build"}},
		{[]string{"a*"}, []string{"api"}, []string{"api#build", "core#build"}},
		{[]string{"tag:frontend"}, []string{"docs", "web"}, []string{"core#build", "docs#build", "util#build", "web#build"}},
		{[]string{"tag:backend"}, []string{"api"}, []string{"api#build", "core#build"}},
		{[]string{"./apps/*"}, []string{"api", "docs", "web"}, basicBuilds},
		{[]string{"./packages/*"}, []string{"core", "util"}, []string{"core#build", "util#build"}},
		{[]string{"docs", "./packages/util"}, []string{"docs", "util"}, []string{"core#build", "docs#build", "util#build"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.filters, ","), func(t *testing.T) {
			var args []string
			for _, f := range tc.filters {
				args = append(args, "--filter", f)
			}
			if got := showProjects(t, ws, args...); !reflect.DeepEqual(got, tc.projects) {
				t.Errorf("vx show selects %v, want %v", got, tc.projects)
			}
			if got := dryRun(t, ws, append([]string{"build"}, args...)...).ids(); !reflect.DeepEqual(got, tc.tasks) {
				t.Errorf("vx run --dry=json plans %v, want %v", got, tc.tasks)
			}
		})
	}
	t.Run("matching nothing", func(t *testing.T) {
		r := vx(t, ws, nil, "run", "build", "--filter", "tag:nosuch")
		if r.Code == 0 || !strings.Contains(r.Stderr, "tag:nosuch") {
			t.Errorf("a filter matching nothing is not refused by name\n%s", r)
		}
	})
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func TestAffected(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cases := []struct {
		name     string
		change   func(t *testing.T, ws string)
		args     []string
		projects []string
		run      map[string]string // task → cache in the real run
	}{
		{
			name: "uncommitted change",
			change: func(t *testing.T, ws string) {
				appendTo(t, filepath.Join(ws, "packages/util/src/util.js"), "// changed\n")
			},
			args:     []string{"--affected"},
			projects: []string{"util", "web"},
			run:      map[string]string{"core#build": "hit", "util#build": "miss", "web#build": "miss"},
		},
		{
			name: "committed on a branch, default base",
			change: func(t *testing.T, ws string) {
				git(t, ws, "checkout", "-q", "-b", "feature")
				appendTo(t, filepath.Join(ws, "packages/core/src/core.js"), "// changed\n")
				git(t, ws, "commit", "-qam", "change core")
			},
			args:     []string{"--affected"},
			projects: []string{"api", "core", "util", "web"},
			run:      map[string]string{"api#build": "miss", "core#build": "miss", "util#build": "miss", "web#build": "miss"},
		},
		{
			name: "explicit ref",
			change: func(t *testing.T, ws string) {
				appendTo(t, filepath.Join(ws, "apps/docs/src/docs.js"), "// changed\n")
				git(t, ws, "commit", "-qam", "change docs")
			},
			args:     []string{"--affected=HEAD~1"},
			projects: []string{"docs"},
			run:      map[string]string{"docs#build": "miss"},
		},
		{
			name: "explicit ref as the next argument",
			change: func(t *testing.T, ws string) {
				appendTo(t, filepath.Join(ws, "apps/docs/src/docs.js"), "// changed\n")
				git(t, ws, "commit", "-qam", "change docs")
			},
			args:     []string{"--affected", "HEAD~1"},
			projects: []string{"docs"},
			run:      map[string]string{"docs#build": "miss"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "basic")
			git(t, ws, "init", "-q")
			git(t, ws, "add", "-A")
			git(t, ws, "commit", "-qm", "initial")
			runJSON(t, ws, nil, 0, "build") // everything cached; dist/ and .vx/ are ignored
			tc.change(t, ws)

			if got := showProjects(t, ws, tc.args...); !reflect.DeepEqual(got, tc.projects) {
				t.Errorf("vx show %v selects %v, want %v", tc.args, got, tc.projects)
			}
			p := dryRun(t, ws, append([]string{"build"}, tc.args...)...)
			if p.Affected == nil {
				t.Fatalf("the plan does not say what --affected found")
			}
			var names []string
			for n := range p.Affected.Projects {
				names = append(names, n)
			}
			sort.Strings(names)
			if !reflect.DeepEqual(names, tc.projects) {
				t.Errorf("plan affected.projects = %v, want %v", p.Affected.Projects, tc.projects)
			}
			s, _ := runJSON(t, ws, nil, 0, append([]string{"build"}, tc.args...)...)
			got := map[string]string{}
			for _, row := range s.Tasks {
				got[row.TaskID] = row.Cache
			}
			if !reflect.DeepEqual(got, tc.run) {
				t.Errorf("vx run build %v: %v, want %v", tc.args, got, tc.run)
			}
		})
	}
}

func TestDryRunExecutesNothingAndPredicts(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	cold := dryRun(t, ws, "build")
	if got := cold.ids(); !reflect.DeepEqual(got, basicBuilds) {
		t.Fatalf("plan %v, want %v", got, basicBuilds)
	}
	for _, tk := range cold.Tasks {
		if tk.Cache != "miss" || tk.Key == "" {
			t.Errorf("cold plan: %s cache %s key %q, want miss with a key", tk.TaskID, tk.Cache, tk.Key)
		}
	}
	if dists := snapshot(t, ws, basicDists...); len(dists) != 0 {
		t.Errorf("a dry run produced outputs: %v", dists)
	}
	var list struct {
		Runs []struct{ ID string } `json:"runs"`
	}
	answerJSON(t, ws, &list, "last", "--list")
	if len(list.Runs) != 0 {
		t.Errorf("a dry run was recorded as a run: %v", list.Runs)
	}

	// The plan's keys are the run's keys.
	s, _ := runJSON(t, ws, nil, 0, "build")
	for _, tk := range cold.Tasks {
		if k := s.keys()[tk.TaskID]; k != tk.Key {
			t.Errorf("%s: planned key %s, run key %s", tk.TaskID, tk.Key, k)
		}
	}
	warm := dryRun(t, ws, "build")
	for _, tk := range warm.Tasks {
		if tk.Cache != "hit" || tk.P50Ms == nil {
			t.Errorf("warm plan: %s cache %s p50 %v, want a hit with a p50", tk.TaskID, tk.Cache, tk.P50Ms)
		}
	}

	// After an edit, the prediction is exactly what the run does.
	appendTo(t, filepath.Join(ws, "packages/util/src/util.js"), "// edited\n")
	removeAll(t, ws, "apps/docs/dist")
	predicted := map[string]string{}
	for _, tk := range dryRun(t, ws, "build").Tasks {
		predicted[tk.TaskID] = tk.Cache
	}
	if exists(filepath.Join(ws, "apps/docs/dist")) {
		t.Errorf("a dry run restored outputs")
	}
	want := map[string]string{"api#build": "hit", "core#build": "hit", "docs#build": "hit", "util#build": "miss", "web#build": "miss"}
	if !reflect.DeepEqual(predicted, want) {
		t.Errorf("predicted %v, want %v", predicted, want)
	}
	after, _ := runJSON(t, ws, nil, 0, "build")
	for _, row := range after.Tasks {
		if row.Cache != predicted[row.TaskID] {
			t.Errorf("%s: predicted %s, the run was a %s", row.TaskID, predicted[row.TaskID], row.Cache)
		}
	}
}

func TestQuestionVerbs(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	first, _ := runJSON(t, ws, nil, 0, "build")
	var why whyAnswer
	answerJSON(t, ws, &why, "why", "core#build")
	if !why.FirstRun {
		t.Errorf("vx why after one run: firstRun = false")
	}
	second, _ := runJSON(t, ws, nil, 0, "build", "--filter", "docs")

	t.Run("show workspace", func(t *testing.T) {
		var show struct {
			Kind     string `json:"kind"`
			Projects []struct {
				Name      string   `json:"name"`
				Dir       string   `json:"dir"`
				Tags      []string `json:"tags"`
				DependsOn []string `json:"dependsOn"`
			} `json:"projects"`
		}
		answerJSON(t, ws, &show, "show")
		got := map[string]string{}
		for _, p := range show.Projects {
			got[p.Name] = p.Dir + " [" + strings.Join(p.Tags, ",") + "] -> " + strings.Join(p.DependsOn, ",")
		}
		want := map[string]string{
			"core": "packages/core [] -> ", "util": "packages/util [] -> core", "web": "apps/web [frontend] -> util",
			"api": "apps/api [backend] -> core", "docs": "apps/docs [frontend] -> ",
		}
		if show.Kind != "workspace" || !reflect.DeepEqual(got, want) {
			t.Errorf("vx show: kind %s projects %v, want workspace %v", show.Kind, got, want)
		}
	})
	t.Run("show task", func(t *testing.T) {
		var show struct {
			Kind     string `json:"kind"`
			Projects []struct {
				Tasks []struct {
					TaskID    string   `json:"taskId"`
					Command   string   `json:"command"`
					DependsOn []string `json:"dependsOn"`
					Inputs    []string `json:"inputs"`
					Outputs   []string `json:"outputs"`
				} `json:"tasks"`
			} `json:"projects"`
		}
		answerJSON(t, ws, &show, "show", "web#build")
		if show.Kind != "task" || len(show.Projects) != 1 || len(show.Projects[0].Tasks) != 1 {
			t.Fatalf("vx show web#build: %+v", show)
		}
		tk := show.Projects[0].Tasks[0]
		if tk.TaskID != "web#build" || !strings.Contains(tk.Command, "cat src/*.js") ||
			!reflect.DeepEqual(tk.DependsOn, []string{"^build"}) || !reflect.DeepEqual(tk.Inputs, []string{"src/**", "package.json"}) ||
			!reflect.DeepEqual(tk.Outputs, []string{"dist/**"}) {
			t.Errorf("vx show web#build: %+v", tk)
		}
	})
	t.Run("last list", func(t *testing.T) {
		var list struct {
			Runs []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
				Tasks  int    `json:"tasks"`
			} `json:"runs"`
		}
		answerJSON(t, ws, &list, "last", "--list")
		if len(list.Runs) != 2 || list.Runs[0].ID != second.RunID || list.Runs[1].ID != first.RunID {
			t.Fatalf("vx last --list: %+v, want %s then %s", list.Runs, second.RunID, first.RunID)
		}
		if list.Runs[1].Tasks != 5 || list.Runs[0].Tasks != 1 {
			t.Errorf("vx last --list: task counts %d, %d; want 1, 5", list.Runs[0].Tasks, list.Runs[1].Tasks)
		}
	})
	t.Run("last run prefix", func(t *testing.T) {
		var last struct {
			Found bool `json:"found"`
			Run   struct {
				ID string `json:"id"`
			} `json:"run"`
			Tasks []struct {
				TaskID string `json:"taskId"`
				Key    string `json:"key"`
			} `json:"tasks"`
		}
		answerJSON(t, ws, &last, "last", "--run", first.RunID[:6])
		if !last.Found || last.Run.ID != first.RunID || len(last.Tasks) != 5 {
			t.Fatalf("vx last --run %s: %+v", first.RunID[:6], last)
		}
		for _, tk := range last.Tasks {
			if tk.Key != first.keys()[tk.TaskID] {
				t.Errorf("history key of %s = %s, summary said %s", tk.TaskID, tk.Key, first.keys()[tk.TaskID])
			}
		}
		if r := vx(t, ws, nil, "last", "--run", "zzzzzz", "--format", "json"); r.Code == 0 || r.Stdout != "" {
			t.Errorf("an unknown run id is not refused\n%s", r)
		}
	})
	t.Run("last log", func(t *testing.T) {
		var log struct {
			TaskID string  `json:"taskId"`
			RunID  string  `json:"runId"`
			Source *string `json:"source"`
			Output string  `json:"output"`
		}
		answerJSON(t, ws, &log, "last", "--log", "core#build")
		if log.TaskID != "core#build" || log.RunID != first.RunID || log.Source == nil || *log.Source != "cache" || !strings.Contains(log.Output, "built core") {
			t.Errorf("vx last --log core#build: %+v", log)
		}
		if r := vx(t, ws, nil, "last", "--log", "cor#build"); r.Code == 0 || !strings.Contains(r.Stderr, "core") {
			t.Errorf("a misspelled task id is not refused with a close name\n%s", r)
		}
	})
}
