package workspace_test

import (
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

func TestSplitTaskID(t *testing.T) {
	tests := []struct {
		id, project, task string
		ok                bool
	}{
		{"web#build", "web", "build", true},
		{"@scope/web#build", "@scope/web", "build", true},
		{"//#lint", "//", "lint", true},
		{"a#b#c", "a#b", "c", true},
		{"#build", "", "", false},
		{"web#", "", "", false},
		{"#", "", "", false},
		{"build", "", "", false},
		{"", "", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			p, task, ok := workspace.SplitTaskID(tc.id)
			if p != tc.project || task != tc.task || ok != tc.ok {
				t.Errorf("SplitTaskID(%q) = %q, %q, %v; want %q, %q, %v", tc.id, p, task, ok, tc.project, tc.task, tc.ok)
			}
			if ok && workspace.TaskID(p, task) != tc.id {
				t.Errorf("TaskID(%q, %q) = %q, want %q", p, task, workspace.TaskID(p, task), tc.id)
			}
		})
	}
}

// graphWorkspace: app → mid → base (package.json), mid has no build.
// "topo" is an ordering-only task no project defines a command for.
var graphWorkspace = map[string]string{
	"vx.workspace.json": `{
		"projects": ["p/*"],
		"tasks": {
			"build": {"dependsOn": ["^build"]},
			"test": {"dependsOn": ["build"]},
			"typecheck": {"dependsOn": ["^topo"], "command": "tsc --noEmit"},
			"topo": {"dependsOn": ["^topo"]},
			"e2e": {"dependsOn": ["@acme/app#build", "//#prepare"], "command": "playwright test"},
			"//#prepare": {"command": "echo prepare"},
			"//#lint": {},
			"//#fmt": {"command": "prettier -w ."}
		}
	}`,
	"package.json":            `{"name": "root", "scripts": {"lint": "eslint .", "build": "vx run build"}}`,
	"p/app/package.json":      `{"name": "@acme/app", "scripts": {"build": "vite build", "test": "vitest"}, "dependencies": {"mid": "workspace:*"}}`,
	"p/mid/package.json":      `{"name": "mid", "scripts": {"test": "vitest"}, "dependencies": {"base": "^1.0.0"}}`,
	"p/base/package.json":     `{"name": "base", "version": "1.0.0", "scripts": {"build": "tsc", "test": ""}}`,
	"p/other/vx.project.json": `{"tasks": {"build": {"command": "make"}}}`,
}

func TestResolve(t *testing.T) {
	m := loadTree(t, graphWorkspace)
	tests := []struct {
		name, project, task string
		defined             bool
		command, source     string
	}{
		{"script from package.json", "@acme/app", "build", true, "vite build", "package.json"},
		{"command from config beats a script", "@acme/app", "typecheck", true, "tsc --noEmit", "config"},
		{"command from vx.project.json", "other", "build", true, "make", "config"},
		{"configured without a command is a no-op", "mid", "build", true, "", ""},
		{"empty script is a no-op", "base", "test", true, "", ""},
		{"script-only task in another project", "mid", "test", true, "vitest", "package.json"},
		{"unknown task", "base", "deploy", false, "", ""},
		{"unknown project", "nope", "build", false, "", ""},
		{"root task with a command", workspace.RootProject, "fmt", true, "prettier -w .", "config"},
		{"root task from the root script", workspace.RootProject, "lint", true, "eslint .", "package.json"},
		{"root script not declared as //#build is no root task", workspace.RootProject, "build", false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, defined := m.Resolve(tc.project, tc.task)
			if defined != tc.defined {
				t.Errorf("defined = %v, want %v", defined, tc.defined)
			}
			if def.Command != tc.command || def.CommandSource != tc.source {
				t.Errorf("command = %q (%q), want %q (%q)", def.Command, def.CommandSource, tc.command, tc.source)
			}
			if def.NoOp() != (tc.command == "") {
				t.Errorf("NoOp = %v with command %q", def.NoOp(), def.Command)
			}
		})
	}
	if got := m.RootTasks(); !eq(got, []string{"fmt", "lint", "prepare"}) {
		t.Errorf("RootTasks = %v, want [fmt lint prepare]", got)
	}
}

func nodeIDs(g *workspace.Graph) []string {
	out := []string{}
	for _, n := range g.Nodes {
		out = append(out, n.ID)
	}
	return out
}

func TestBuildGraph(t *testing.T) {
	m := loadTree(t, graphWorkspace)
	tests := []struct {
		name        string
		tasks       []string
		filter      []string // project names; nil = all
		includeRoot bool
		want        map[string][]string // node → its DepIDs, exactly the nodes of the graph
		executable  []string            // sorted
		entries     []string            // sorted
	}{
		{
			name:  "^build reaches through a project without a build",
			tasks: []string{"build"}, filter: []string{"@acme/app"},
			want: map[string][]string{
				"@acme/app#build": {"mid#build"},
				"mid#build":       {"base#build"},
				"base#build":      {},
			},
			executable: []string{"@acme/app#build", "base#build"},
			entries:    []string{"@acme/app#build"},
		},
		{
			name:  "build in the same project",
			tasks: []string{"test"}, filter: []string{"base"},
			want: map[string][]string{
				"base#test":  {"base#build"},
				"base#build": {},
			},
			executable: []string{"base#build"},
			entries:    []string{"base#test"},
		},
		{
			name:  "ordering-only task no project defines",
			tasks: []string{"typecheck"}, filter: []string{"@acme/app"},
			want: map[string][]string{
				"@acme/app#typecheck": {"mid#topo"},
				"mid#topo":            {"base#topo"},
				"base#topo":           {},
			},
			executable: []string{"@acme/app#typecheck"},
			entries:    []string{"@acme/app#typecheck"},
		},
		{
			name:  "project#task and root task dependencies",
			tasks: []string{"base#e2e"},
			want: map[string][]string{
				"base#e2e":        {"@acme/app#build", "//#prepare"},
				"@acme/app#build": {"mid#build"},
				"mid#build":       {"base#build"},
				"base#build":      {},
				"//#prepare":      {},
			},
			executable: []string{"//#prepare", "@acme/app#build", "base#build", "base#e2e"},
			entries:    []string{"base#e2e"},
		},
		{
			name:       "a root task by id",
			tasks:      []string{"//#lint"},
			want:       map[string][]string{"//#lint": {}},
			executable: []string{"//#lint"},
			entries:    []string{"//#lint"},
		},
		{
			// Projects without lint carry it as no-op nodes; only the root runs.
			name:  "a task name includes its root task when asked",
			tasks: []string{"lint"}, includeRoot: true,
			want: map[string][]string{
				"//#lint": {}, "@acme/app#lint": {}, "mid#lint": {}, "base#lint": {}, "other#lint": {},
			},
			executable: []string{"//#lint"},
			entries:    []string{"//#lint", "@acme/app#lint", "base#lint", "mid#lint", "other#lint"},
		},
		{
			name:  "a task over every project",
			tasks: []string{"build"},
			want: map[string][]string{
				"@acme/app#build": {"mid#build"},
				"mid#build":       {"base#build"},
				"base#build":      {},
				"other#build":     {},
			},
			executable: []string{"@acme/app#build", "base#build", "other#build"},
			entries:    []string{"@acme/app#build", "base#build", "mid#build", "other#build"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sel []*workspace.Project
			for _, name := range tc.filter {
				p, ok := m.Project(name)
				if !ok {
					t.Fatalf("no project %q", name)
				}
				sel = append(sel, p)
			}
			g, err := m.Build(tc.tasks, sel, tc.includeRoot)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if len(g.Nodes) != len(tc.want) {
				t.Errorf("nodes = %v, want %d nodes", nodeIDs(g), len(tc.want))
			}
			pos := map[string]int{}
			for i, n := range g.Nodes {
				pos[n.ID] = i
				if n.Index != i {
					t.Errorf("%s: Index = %d, want %d", n.ID, n.Index, i)
				}
				if g.ByID[n.ID] != n {
					t.Errorf("ByID[%s] is not the node", n.ID)
				}
			}
			for id, deps := range tc.want {
				n := g.ByID[id]
				if n == nil {
					t.Errorf("missing node %s (have %v)", id, nodeIDs(g))
					continue
				}
				if !eq(n.DepIDs, deps) {
					t.Errorf("%s deps = %v, want %v", id, n.DepIDs, deps)
				}
				for _, d := range n.Deps {
					if pos[d.ID] >= pos[id] {
						t.Errorf("%s comes before its dependency %s", id, d.ID)
					}
				}
			}
			var exe []string
			for _, n := range g.Executable() {
				exe = append(exe, n.ID)
			}
			sortStrings(exe)
			if !eq(exe, tc.executable) {
				t.Errorf("executable = %v, want %v", exe, tc.executable)
			}
			var entries []string
			for _, n := range g.Nodes {
				if n.Entry {
					entries = append(entries, n.ID)
				}
			}
			sortStrings(entries)
			if !eq(entries, tc.entries) {
				t.Errorf("entries = %v, want %v", entries, tc.entries)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	base := map[string]string{
		"p/web/package.json": `{"name": "web", "scripts": {"build": "vite build", "test": "vitest", "lint": "eslint"}, "dependencies": {"ui": "*"}}`,
		"p/ui/package.json":  `{"name": "ui", "scripts": {"build": "tsc"}}`,
	}
	withConfig := func(cfg string) map[string]string {
		files := map[string]string{"vx.workspace.json": cfg}
		for k, v := range base {
			files[k] = v
		}
		return files
	}
	tests := []struct {
		name  string
		cfg   string
		tasks []string
		want  []string
	}{
		{"unknown task lists close names", `{"projects": ["p/*"]}`, []string{"biuld"}, []string{`"biuld"`, "build"}},
		{"unknown task in a task id", `{"projects": ["p/*"]}`, []string{"web#tset"}, []string{`"web#tset"`, "test"}},
		{"unknown project in a task id", `{"projects": ["p/*"]}`, []string{"wbe#build"}, []string{`"wbe"`, "web"}},
		{"task id of a project that lacks the task", `{"projects": ["p/*"]}`, []string{"ui#lint"}, []string{`"ui#lint"`, "lint"}},
		{"half task id #build", `{"projects": ["p/*"]}`, []string{"#build"}, []string{`"#build"`, "project#task"}},
		{"half task id web#", `{"projects": ["p/*"]}`, []string{"web#"}, []string{`"web#"`, "project#task"}},
		{"no task", `{"projects": ["p/*"]}`, nil, []string{"no task"}},
		{"empty task name", `{"projects": ["p/*"]}`, []string{""}, []string{"empty"}},
		{
			"unknown ^dependsOn names the task and the reference",
			`{"projects": ["p/*"], "tasks": {"test": {"dependsOn": ["^biuld"]}}}`,
			[]string{"test"}, []string{"#test", `"^biuld"`, "build"},
		},
		{
			"unknown same-project dependsOn",
			`{"projects": ["p/*"], "tasks": {"test": {"dependsOn": ["lnit"]}}}`,
			[]string{"web#test"}, []string{"web#test", `"lnit"`, "lint"},
		},
		{
			"dependsOn naming an unknown project",
			`{"projects": ["p/*"], "tasks": {"test": {"dependsOn": ["uii#build"]}}}`,
			[]string{"web#test"}, []string{"web#test", `"uii#build"`, `"uii"`},
		},
		{
			"dependsOn with a half task id",
			`{"projects": ["p/*"], "tasks": {"test": {"dependsOn": ["ui#"]}}}`,
			[]string{"web#test"}, []string{"web#test", `"ui#"`, "project#task"},
		},
		{
			"dependsOn with an empty ^",
			`{"projects": ["p/*"], "tasks": {"test": {"dependsOn": ["^"]}}}`,
			[]string{"web#test"}, []string{"web#test", `"^"`},
		},
		{
			"task cycle names the path",
			`{"projects": ["p/*"], "tasks": {"build": {"dependsOn": ["test"]}, "test": {"dependsOn": ["lint"]}, "lint": {"dependsOn": ["build"]}}}`,
			[]string{"web#build"}, []string{"cycle", "web#build → web#test → web#lint → web#build"},
		},
		{
			"task cycle across projects names the path",
			`{"projects": ["p/*"], "tasks": {"build": {"dependsOn": ["^build"]}, "ui#build": {"dependsOn": ["web#lint"]}, "lint": {"dependsOn": ["build"]}}}`,
			[]string{"web#build"}, []string{"cycle", "web#build → ui#build → web#lint → web#build"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := loadTree(t, withConfig(tc.cfg))
			_, err := m.Build(tc.tasks, nil, true)
			if err == nil {
				t.Fatal("Build succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestTaskNames(t *testing.T) {
	m := loadTree(t, graphWorkspace)
	want := []string{"build", "e2e", "fmt", "lint", "prepare", "test", "topo", "typecheck"}
	if got := m.TaskNames(); !eq(got, want) {
		t.Errorf("TaskNames = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		name  string
		known bool
	}{{"build", true}, {"topo", true}, {"deploy", false}} {
		if got := m.KnownTask(tc.name); got != tc.known {
			t.Errorf("KnownTask(%q) = %v, want %v", tc.name, got, tc.known)
		}
	}
}
