package workspace_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// eachPlugin answers a task "each" for every project it is sent, from
// the first file it is sent, and writes each tasks request it gets to
// requests.log (a JSON line of its files and projects' roots), so a test
// sees what vx sent it and how often; starts.log has a line for each
// start, its stage.
const eachPlugin = `const fs = require("fs");
const req = JSON.parse(fs.readFileSync(0, "utf8"));
fs.appendFileSync("starts.log", req.stage + "\n");
const answer = (o) => process.stdout.write(JSON.stringify({ protocol: 1, ...o }));
if (req.stage === "describe") answer({ name: "each", version: "1.0.0", stages: ["tasks"], globs: ["**/scope.json"] });
else {
  fs.appendFileSync("requests.log", JSON.stringify({ files: req.files, roots: req.projects.map((p) => p.root) }) + "\n");
  answer({ tasks: req.files.length ? req.projects.map((p) => ({ project: p.name, name: "each", file: req.files[0], command: "true" })) : [] });
}
`

// scopeTree is a workspace of packages a, b and legacy and examples
// ex, each with a scope.json, declaring eachPlugin with decl's include
// and exclude (decl: the JSON object's other keys).
func scopeTree(t *testing.T, decl string) string {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"package.json":                 `{"name":"root","workspaces":["packages/*","examples/*"]}`,
		"vx.workspace.json":            `{"plugins":[{"plugin":"./tools/each.cjs"` + decl + `}]}`,
		"tools/each.cjs":               eachPlugin,
		"scope.json":                   "{}",
		"packages/a/package.json":      `{"name":"a"}`,
		"packages/a/scope.json":        "{}",
		"packages/b/package.json":      `{"name":"b"}`,
		"packages/b/scope.json":        "{}",
		"packages/legacy/package.json": `{"name":"legacy"}`,
		"packages/legacy/scope.json":   "{}",
		"examples/ex/package.json":     `{"name":"ex"}`,
		"examples/ex/scope.json":       "{}",
	})
	return root
}

type scopeRequest struct {
	Files []string `json:"files"`
	Roots []string `json:"roots"`
}

// requests are the tasks requests eachPlugin got, in order.
func requests(t *testing.T, root string) []scopeRequest {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(root, "requests.log"))
	var out []scopeRequest
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var r scopeRequest
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("requests.log: %v", err)
		}
		out = append(out, r)
	}
	return out
}

// eachTasks lists the projects holding the plugin's "each" task.
func eachTasks(m *workspace.Model) []string {
	var out []string
	for _, p := range m.Projects {
		if _, ok := m.Inferred(p.Name, "each"); ok {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// TestPluginScopeLimitsFilesAndProjects: a declaration's include and
// exclude limit the matched files the plugin is sent and the projects
// it is sent (a project outside them gets no task from it); vx info's
// model shows the scope.
func TestPluginScopeLimitsFilesAndProjects(t *testing.T) {
	needNode(t)
	root := scopeTree(t, `,"include":["scope.json","packages/**"],"exclude":["packages/legacy/**"]`)
	m := mustLoad(t, root)
	reqs := requests(t, root)
	if len(reqs) != 1 {
		t.Fatalf("tasks requests: %+v", reqs)
	}
	if want := []string{"packages/a/scope.json", "packages/b/scope.json", "scope.json"}; !slices.Equal(reqs[0].Files, want) {
		t.Errorf("files sent: %q, want %q", reqs[0].Files, want)
	}
	if want := []string{"packages/a", "packages/b"}; !slices.Equal(reqs[0].Roots, want) {
		t.Errorf("projects sent: %q, want %q", reqs[0].Roots, want)
	}
	if got := eachTasks(m); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("projects with an inferred task: %q", got)
	}
	ps := m.Plugins()
	if len(ps) != 1 || ps[0].Files != 3 || !slices.Equal(ps[0].Include, []string{"scope.json", "packages/**"}) || !slices.Equal(ps[0].Exclude, []string{"packages/legacy/**"}) {
		t.Errorf("plugin state: %+v", ps)
	}
}

// TestPluginScopeChangeAsksAgain: an unchanged scope keeps the stored
// answer (a warm load starts no plugin); a scope that now sends other
// files or projects asks the tasks stage again, and only it; a scope
// rewritten to send the same request keeps the stored answer, which was
// given for that request.
func TestPluginScopeChangeAsksAgain(t *testing.T) {
	needNode(t)
	root := scopeTree(t, `,"options":{},"exclude":["examples/**"]`)
	mustLoad(t, root)
	m := mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks" {
		t.Fatalf("a warm load with the scope unchanged started the plugin: %q", got)
	}
	if got := eachTasks(m); !slices.Equal(got, []string{"a", "b", "legacy"}) {
		t.Fatalf("projects with an inferred task: %q", got)
	}
	writeTree(t, root, map[string]string{"vx.workspace.json": `{"plugins":[{"plugin":"./tools/each.cjs","options":{},"exclude":["examples/**","packages/legacy/**"]}]}`})
	m = mustLoad(t, root)
	reqs := requests(t, root)
	if got := starts(t, root); got != "describe,tasks,tasks" || len(reqs) != 2 || !slices.Equal(reqs[1].Roots, []string{"packages/a", "packages/b"}) {
		t.Fatalf("a narrower scope: started %q, requests %+v", got, reqs)
	}
	if got := eachTasks(m); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("projects with an inferred task after the change: %q", got)
	}
	writeTree(t, root, map[string]string{"vx.workspace.json": `{"plugins":[{"plugin":"./tools/each.cjs","options":{},"exclude":["examples/*/*","packages/legacy/*"]}]}`})
	mustLoad(t, root)
	if got := starts(t, root); got != "describe,tasks,tasks" {
		t.Fatalf("a scope sending the same request started the plugin: %q", got)
	}
}

// TestPluginScopeLimitsTheWatch: a matched file outside a plugin's scope
// is not one whose change vxd's watch reloads for.
func TestPluginScopeLimitsTheWatch(t *testing.T) {
	needNode(t)
	root := scopeTree(t, `,"exclude":["examples/**"]`)
	m := mustLoad(t, root)
	if !m.PluginMatches("packages/a/scope.json") {
		t.Error("a matched file in scope is not watched for")
	}
	if m.PluginMatches(filepath.FromSlash("examples/ex/scope.json")) {
		t.Error("a matched file outside the scope is watched for")
	}
}

// TestPluginScopeRefusedWhereWritten: a bad include or exclude is refused
// with the file, line and column of the value, like every other key.
func TestPluginScopeRefusedWhereWritten(t *testing.T) {
	tests := []struct{ name, decl, at, want string }{
		{"climbs out", `"include": ["packages/**", "../x/**"]`, `"../x`, `plugins[0].include[1]: glob "../x/**" has a . or .. segment`},
		{"absolute", `"exclude": ["/abs/**"]`, `"/abs`, `plugins[0].exclude[0]: glob "/abs/**" is not workspace-relative`},
		{"bad glob", `"exclude": ["packages/["]`, `"packages/[`, `plugins[0].exclude[0]: glob "packages/[" is not a valid glob`},
		{"empty", `"include": [""]`, `""`, `plugins[0].include[0]: an empty glob`},
		{"a string, not a list", `"include": "packages/**"`, `"packages/**"`, `plugins[0].include: expected an array`},
		{"a number in the list", `"exclude": ["a", 5]`, `5]`, `plugins[0].exclude[1]: expected a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			src := "{\"plugins\": [\n  {\"plugin\": \"./p.mjs\",\n   " + tc.decl + "}\n]}\n"
			writeTree(t, root, map[string]string{"vx.workspace.json": src})
			_, err := workspace.Load(root)
			var fe *workspace.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Load error = %v, want *FileError", err)
			}
			line, col := posOf(t, src, tc.at)
			if fe.File != filepath.Join(root, "vx.workspace.json") || fe.Line != line || fe.Col != col {
				t.Errorf("at %s %d:%d, want %d:%d (%s)", fe.File, fe.Line, fe.Col, line, col, fe.Msg)
			}
			if !strings.Contains(fe.Msg, tc.want) {
				t.Errorf("message %q does not contain %q", fe.Msg, tc.want)
			}
		})
	}
}
