package workspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/workspace"
)

func TestLoadJSONC(t *testing.T) {
	cfg := `// vx workspace, with comments and trailing commas
{
  /* block comment
     over lines, with a "quote" and a } and a ] */
  "projects": ["apps/*", "packages/*",], // trailing comma in an array
  "env": ["NODE_ENV",],
  "tasks": {
    "build": {
      "command": "echo http://example.com/x /* not a comment */ // nor this",
      "dependsOn": ["^build",],
    },
    "quote": { "command": "echo \"//\" '/*' done\\" },
    "deploy": { "cache": false, "exec": { "env": { "TOKEN": { "secret": true }, "MODE": "prod", }, }, },
  }, // trailing comma in an object
}
`
	m := loadTree(t, map[string]string{
		"vx.workspace.json":         cfg,
		"apps/web/package.json":     `{"name": "web"}`,
		"packages/ui/package.json":  `{"name": "ui"}`,
		"packages/junk/readme.md":   "no manifest: not a project",
		"apps/web/node_modules/x/a": "",
	})
	if got := projectNames(m.Projects); !eq(got, []string{"ui", "web"}) {
		t.Errorf("projects = %v, want [ui web]", got)
	}
	if got := m.Config.Env; !eq(got, []string{"NODE_ENV"}) {
		t.Errorf("env = %v", got)
	}
	tests := []struct {
		name, task, wantCommand string
	}{
		{"comment markers inside a string are kept", "build", "echo http://example.com/x /* not a comment */ // nor this"},
		{"escaped quotes and backslash end the string correctly", "quote", `echo "//" '/*' done\`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def, ok := m.Resolve("web", tc.task)
			if !ok {
				t.Fatalf("Resolve(web, %s) not defined", tc.task)
			}
			if def.Command != tc.wantCommand {
				t.Errorf("command = %q, want %q", def.Command, tc.wantCommand)
			}
		})
	}
	def, _ := m.Resolve("web", "deploy")
	if def.Cache {
		t.Error("deploy: cache = true, want false")
	}
	if got := def.Secrets(); !eq(got, []string{"TOKEN"}) {
		t.Errorf("deploy secrets = %v, want [TOKEN]", got)
	}
	if v := def.ExecEnv["MODE"].Value; v == nil || *v != "prod" {
		t.Errorf("MODE shorthand value = %v, want prod", v)
	}
}

// posOf is the 1-based line and column of the first byte of marker in src
// ("EOF": just past the last byte).
func posOf(t *testing.T, src, marker string) (int, int) {
	t.Helper()
	off := len(src)
	if marker != "EOF" {
		off = strings.Index(src, marker)
		if off < 0 {
			t.Fatalf("marker %q not in source", marker)
		}
	}
	line, col := 1, 1
	for _, c := range []byte(src[:off]) {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func TestLoadMalformedConfig(t *testing.T) {
	const web = "apps/web/package.json"
	tests := []struct {
		name    string
		file    string // which file is malformed (slash path)
		src     string
		at      string // marker whose first byte is where the error is
		wantMsg string // substring of the message
	}{
		{
			name:    "missing comma",
			file:    "vx.workspace.json",
			src:     "{\n  \"projects\": [\"apps/*\"]\n  \"env\": []\n}\n",
			at:      "\"env\"",
			wantMsg: "invalid character",
		},
		{
			name:    "stray comma inside an array",
			file:    "vx.workspace.json",
			src:     "{\"projects\": [\"apps/*\",,]}",
			at:      "]}",
			wantMsg: "invalid character",
		},
		{
			name:    "unknown top-level key",
			file:    "vx.workspace.json",
			src:     "{\n  \"projects\": [\"apps/*\"],\n  \"bogus\": 1\n}\n",
			at:      "\"bogus\"",
			wantMsg: "bogus",
		},
		{
			name:    "unknown key inside a task",
			file:    "vx.workspace.json",
			src:     "{\n  \"projects\": [\"apps/*\"],\n  \"tasks\": {\n    \"build\": { \"cmd\": \"tsc\" }\n  }\n}\n",
			at:      "\"cmd\"",
			wantMsg: "tasks.build.cmd",
		},
		{
			name:    "wrong type at the top level",
			file:    "vx.workspace.json",
			src:     "{\n  \"projects\": [\"apps/*\"],\n  \"workers\": \"4\"\n}\n",
			at:      "\"4\"",
			wantMsg: "workers",
		},
		{
			name:    "wrong type inside a task names the task",
			file:    "vx.workspace.json",
			src:     "{\n  \"projects\": [\"apps/*\"],\n  \"tasks\": { \"build\": { \"cache\": \"yes\" } }\n}\n",
			at:      "\"yes\"",
			wantMsg: "tasks.build.cache",
		},
		{
			name:    "wrong type of an exec.env entry",
			file:    "vx.workspace.json",
			src:     "{\n  \"projects\": [\"apps/*\"],\n  \"tasks\": { \"build\": { \"exec\": { \"env\": { \"MODE\": 5 } } } }\n}\n",
			at:      "5 }",
			wantMsg: "exec.env",
		},
		{
			name:    "wrong mcp.run value",
			file:    "vx.workspace.json",
			src:     "{\n  \"mcp\": {\"run\": 5}\n}\n",
			at:      "5}",
			wantMsg: "mcp.run",
		},
		{
			name:    "trailing garbage",
			file:    "vx.workspace.json",
			src:     "{\"projects\": [\"apps/*\"]}\nxyz\n",
			at:      "xyz",
			wantMsg: "after the end of the JSON object",
		},
		{
			name:    "trailing closing bracket",
			file:    "vx.workspace.json",
			src:     "{\"projects\": [\"apps/*\"]}\n]\n",
			at:      "]\n",
			wantMsg: "after the end of the JSON object",
		},
		{
			name:    "empty file",
			file:    "vx.workspace.json",
			src:     "",
			at:      "EOF",
			wantMsg: "empty",
		},
		{
			name:    "comments only",
			file:    "vx.workspace.json",
			src:     "// nothing here yet\n",
			at:      "// nothing",
			wantMsg: "empty",
		},
		{
			name:    "misspelt top-level key",
			file:    "vx.workspace.json",
			src:     "{\n  \"projects\": [\"apps/*\"],\n  \"taks\": {}\n}\n",
			at:      "\"taks\"",
			wantMsg: `unknown key "taks" (did you mean tasks?)`,
		},
		{
			name:    "misspelt key inside a task",
			file:    "vx.workspace.json",
			src:     "{\"tasks\": {\"b.x\": {\"comand\": \"x\"}}}",
			at:      "\"comand\"",
			wantMsg: `unknown key "tasks.b.x.comand" (did you mean command?)`,
		},
		{
			name:    "a plugins entry neither a string nor an object",
			file:    "vx.workspace.json",
			src:     "{\n  \"plugins\": [\"./a.mjs\", 42]\n}\n",
			at:      "42",
			wantMsg: `plugins[1]: expected a string or {"plugin": string, "options": any, "timeout": duration, "include": [glob], "exclude": [glob]}, found a number`,
		},
		{
			name:    "a plugins entry that is an array",
			file:    "vx.workspace.json",
			src:     "{\"plugins\": [[\"./a.mjs\"]]}",
			at:      "[\"./a",
			wantMsg: `plugins[0]: expected a string or {"plugin": string`,
		},
		{
			name:    "a misspelt key of a plugin declaration",
			file:    "vx.workspace.json",
			src:     "{\"plugins\": [{\"plugin\": \"./p.mjs\", \"timout\": \"2s\"}]}",
			at:      "\"timout\"",
			wantMsg: `unknown key "plugins[0].timout" (did you mean timeout?)`,
		},
		{
			name:    "a plugin's timeout that is a number",
			file:    "vx.workspace.json",
			src:     "{\"plugins\": [{\"plugin\": \"./p.mjs\", \"timeout\": 5}]}",
			at:      "5}",
			wantMsg: `plugins[0].timeout: expected a string, found number`,
		},
		{
			name:    "remoteCache's url that is a number",
			file:    "vx.workspace.json",
			src:     "{\"remoteCache\": {\"url\": 5}}",
			at:      "5}",
			wantMsg: `remoteCache.url: expected a string, found number`,
		},
		{
			name:    "a misspelt key of remoteCache",
			file:    "vx.workspace.json",
			src:     "{\"remoteCache\": {\"url\": \"https://c.example\", \"tem\": \"t\"}}",
			at:      "\"tem\"",
			wantMsg: `unknown key "remoteCache.tem" (did you mean team?)`,
		},
		{
			name:    "a plugin at an absolute path",
			file:    "vx.workspace.json",
			src:     "{\n  \"plugins\": [\"/abs/p.mjs\"]\n}\n",
			at:      "\"/abs",
			wantMsg: `plugins[0]: plugin "/abs/p.mjs": an absolute path`,
		},
		{
			name:    "a plugin declared twice",
			file:    "vx.workspace.json",
			src:     "{\"plugins\": [\"./p.mjs\", {\"plugin\": \"./p.mjs\"}]}",
			at:      "{\"plugin\"",
			wantMsg: `plugins[1]: plugin "./p.mjs" is declared twice`,
		},
		{
			name:    "truncated file",
			file:    "vx.workspace.json",
			src:     "{\n  \"projects\": [\"apps/*\"\n",
			at:      "EOF",
			wantMsg: "the file ends early",
		},
		{
			name:    "unknown key in vx.project.json",
			file:    "apps/web/vx.project.json",
			src:     "{\n  \"tag\": [\"x\"]\n}\n",
			at:      "\"tag\"",
			wantMsg: "tag",
		},
		{
			name:    "missing comma in a project's package.json",
			file:    web,
			src:     "{\n  \"name\": \"web\"\n  \"version\": \"1.0.0\"\n}\n",
			at:      "\"version\"",
			wantMsg: "invalid character",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{
				"vx.workspace.json": `{"projects": ["apps/*"]}`,
				web:                 `{"name": "web"}`,
			}
			files[tc.file] = tc.src
			writeTree(t, root, files)
			_, err := workspace.Load(root)
			var fe *workspace.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Load error = %v (%T), want *workspace.FileError", err, err)
			}
			wantFile := filepath.Join(root, filepath.FromSlash(tc.file))
			if fe.File != wantFile {
				t.Errorf("File = %q, want %q", fe.File, wantFile)
			}
			if !strings.Contains(err.Error(), fe.File) {
				t.Errorf("error %q does not name the file", err)
			}
			line, col := posOf(t, tc.src, tc.at)
			if fe.Line != line || fe.Col != col {
				t.Errorf("position = %d:%d, want %d:%d (%s)", fe.Line, fe.Col, line, col, fe.Msg)
			}
			if !strings.Contains(fe.Msg, tc.wantMsg) {
				t.Errorf("message %q does not contain %q", fe.Msg, tc.wantMsg)
			}
			if strings.Contains(fe.Msg, "plain") || strings.Contains(fe.Msg, "Go ") {
				t.Errorf("message %q names a Go type", fe.Msg)
			}
		})
	}
}

func TestLoadInvalidValues(t *testing.T) {
	tests := []struct {
		name, cfg, wantMsg string
	}{
		{"bad timeout", `{"projects": ["apps/*"], "tasks": {"test": {"timeout": "soon"}}}`, "tasks.test.timeout"},
		{"negative timeout", `{"projects": ["apps/*"], "tasks": {"test": {"timeout": "-1s"}}}`, "tasks.test.timeout"},
		{"negative workers", `{"projects": ["apps/*"], "workers": -2}`, "workers"},
		{"half task id as a task key", `{"projects": ["apps/*"], "tasks": {"web#": {}}}`, "web#"},
		{"task key starting with #", `{"projects": ["apps/*"], "tasks": {"#build": {}}}`, "#build"},
		{"bad mcp.run", `{"projects": ["apps/*"], "mcp": {"run": "yes"}}`, "mcp.run"},
		{"ui neither tui nor stream", `{"projects": ["apps/*"], "ui": "fancy"}`, `ui: "fancy"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{"vx.workspace.json": tc.cfg, "apps/web/package.json": `{"name":"web"}`})
			_, err := workspace.Load(root)
			var fe *workspace.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Load error = %v, want *FileError", err)
			}
			if fe.File != filepath.Join(root, "vx.workspace.json") {
				t.Errorf("File = %q", fe.File)
			}
			if !strings.Contains(fe.Msg, tc.wantMsg) {
				t.Errorf("message %q does not contain %q", fe.Msg, tc.wantMsg)
			}
		})
	}
}

func TestLoadProjectsDiscovery(t *testing.T) {
	pkg := func(name string) string { return `{"name": "` + name + `"}` }
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name: "projects globs with exclusion, dirs without a manifest and node_modules skipped",
			files: map[string]string{
				"vx.workspace.json":                       `{"projects": ["apps/*", "packages/**", "!packages/legacy"]}`,
				"apps/web/package.json":                   pkg("web"),
				"apps/docs/vx.project.json":               `{}`,
				"apps/empty/README.md":                    "",
				"packages/ui/package.json":                pkg("@acme/ui"),
				"packages/nested/deep/package.json":       pkg("deep"),
				"packages/legacy/package.json":            pkg("legacy"),
				"packages/ui/node_modules/x/package.json": pkg("x"),
			},
			want: []string{"@acme/ui", "deep", "docs", "web"},
		},
		{
			name: "package.json workspaces array",
			files: map[string]string{
				"vx.workspace.json":         `{}`,
				"package.json":              `{"name": "root", "workspaces": ["apps/*", "packages/*", "!packages/old"]}`,
				"apps/web/package.json":     pkg("web"),
				"packages/ui/package.json":  pkg("ui"),
				"packages/old/package.json": pkg("old"),
				"tools/x/package.json":      pkg("not-listed"),
			},
			want: []string{"ui", "web"},
		},
		{
			name: "package.json workspaces object with packages",
			files: map[string]string{
				"vx.workspace.json":        `{}`,
				"package.json":             `{"name": "root", "workspaces": {"packages": ["packages/*"], "nohoist": ["**/x"]}}`,
				"packages/ui/package.json": pkg("ui"),
				"apps/web/package.json":    pkg("web"),
			},
			want: []string{"ui"},
		},
		{
			name: "pnpm-workspace.yaml with quotes, comments and exclusions",
			files: map[string]string{
				"vx.workspace.json":          `{}`,
				"package.json":               `{"name": "root"}`,
				"pnpm-workspace.yaml":        "# pnpm\npackages:\n  - 'apps/*' # the apps\n  - \"packages/*\"\n  - '!**/test/**'\ncatalog:\n  react: ^18\n",
				"apps/web/package.json":      pkg("web"),
				"packages/ui/package.json":   pkg("ui"),
				"packages/test/package.json": pkg("test-utils"),
			},
			want: []string{"ui", "web"},
		},
		{
			name: "projects in vx.workspace.json win over package.json workspaces",
			files: map[string]string{
				"vx.workspace.json":        `{"projects": ["apps/*"]}`,
				"package.json":             `{"workspaces": ["packages/*"]}`,
				"apps/web/package.json":    pkg("web"),
				"packages/ui/package.json": pkg("ui"),
			},
			want: []string{"web"},
		},
		{
			name: "leading ./ and trailing / in globs",
			files: map[string]string{
				"vx.workspace.json":     `{"projects": ["./apps/*/"]}`,
				"apps/web/package.json": pkg("web"),
			},
			want: []string{"web"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := loadTree(t, tc.files)
			if got := projectNames(m.Projects); !eq(got, tc.want) {
				t.Errorf("projects = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLoadProjectNamesAndConfig(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json": `{
			"projects": ["apps/*", "packages/*"],
			"tasks": {
				"build": {"command": "tsc", "inputs": ["src/**"], "outputs": ["dist/**"], "env": ["NODE_ENV"], "timeout": "5m",
				          "exec": {"env": {"A": "1", "B": "2"}}},
				"@acme/web#build": {"env": ["WEB_ONLY"]}
			}
		}`,
		"apps/web/package.json": `{"name": "@acme/web", "version": "1.2.3", "scripts": {"build": "vite build"}}`,
		"apps/web/vx.project.json": `{
			// per-project overrides
			"tags": ["frontend", "app"],
			"dependsOn": ["plain"],
			"tasks": {"build": {"outputs": ["out/**"], "cache": false, "exec": {"env": {"B": "3", "C": {"secret": true}}}}}
		}`,
		"packages/plain/vx.project.json":   `{"tags": ["lib"]}`,
		"packages/renamed/package.json":    `{"name": "from-package"}`,
		"packages/renamed/vx.project.json": `{"name": "from-project-file"}`,
	})
	tests := []struct {
		name, project, dir string
		tags, deps         []string
	}{
		{"package.json name, scoped", "@acme/web", "apps/web", []string{"frontend", "app"}, []string{"plain"}},
		{"directory name without package.json", "plain", "packages/plain", []string{"lib"}, []string{}},
		{"vx.project.json name wins", "from-project-file", "packages/renamed", []string{}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := m.Project(tc.project)
			if !ok {
				t.Fatalf("no project %q (have %v)", tc.project, projectNames(m.Projects))
			}
			if p.Dir != tc.dir {
				t.Errorf("dir = %q, want %q", p.Dir, tc.dir)
			}
			if !eq(p.Tags, tc.tags) {
				t.Errorf("tags = %v, want %v", p.Tags, tc.tags)
			}
			if !eq(p.Deps, tc.deps) {
				t.Errorf("deps = %v, want %v", p.Deps, tc.deps)
			}
		})
	}

	t.Run("overrides merge field by field", func(t *testing.T) {
		def, ok := m.Resolve("@acme/web", "build")
		if !ok {
			t.Fatal("build not defined")
		}
		checks := []struct {
			field     string
			got, want any
		}{
			{"command (workspace command beats the script)", def.Command, "tsc"},
			{"commandSource", def.CommandSource, "config"},
			{"inputs (workspace)", strings.Join(def.Inputs, ","), "src/**"},
			{"outputs (project)", strings.Join(def.Outputs, ","), "out/**"},
			{"env (@acme/web#build in the workspace)", strings.Join(def.Env, ","), "WEB_ONLY"},
			{"cache (project)", def.Cache, false},
			{"timeout (workspace)", def.Timeout, 5 * time.Minute},
			{"secrets (project exec.env)", strings.Join(def.Secrets(), ","), "C"},
			{"exec.env A kept from the workspace", valueOf(def.ExecEnv["A"]), "1"},
			{"exec.env B replaced by the project", valueOf(def.ExecEnv["B"]), "3"},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s = %v, want %v", c.field, c.got, c.want)
			}
		}
	})
	t.Run("another project keeps the workspace definition", func(t *testing.T) {
		def, _ := m.Resolve("plain", "build")
		if got := strings.Join(def.Outputs, ","); got != "dist/**" {
			t.Errorf("outputs = %q, want dist/**", got)
		}
		if got := strings.Join(def.Env, ","); got != "NODE_ENV" {
			t.Errorf("env = %q, want NODE_ENV (web#build must not leak)", got)
		}
		if !def.Cache {
			t.Error("cache = false, want true")
		}
		if len(def.Secrets()) != 0 {
			t.Errorf("secrets = %v, want none", def.Secrets())
		}
	})
	t.Run("config files are recorded", func(t *testing.T) {
		want := filepath.Join(m.Root, "apps", "web", "vx.project.json")
		found := false
		for _, f := range m.Files {
			if f == want {
				found = true
			}
		}
		if !found {
			t.Errorf("Files = %v, missing %s", m.Files, want)
		}
	})
}

func valueOf(v workspace.EnvVar) string {
	if v.Value == nil {
		return "<nil>"
	}
	return *v.Value
}

func TestLoadDependencies(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json": `{"projects": ["packages/*"]}`,
		"packages/app/package.json": `{"name": "app",
			"dependencies": {"@acme/ui": "workspace:*", "react": "^18.0.0"},
			"devDependencies": {"@acme/utils": "^1.0.0"},
			"peerDependencies": {"@acme/theme": "*"},
			"optionalDependencies": {"@acme/extra": "workspace:^"}}`,
		"packages/ui/package.json":      `{"name": "@acme/ui", "dependencies": {"@acme/utils": "1.0.0", "@acme/ui": "workspace:*"}}`,
		"packages/utils/package.json":   `{"name": "@acme/utils", "version": "1.0.0"}`,
		"packages/theme/package.json":   `{"name": "@acme/theme"}`,
		"packages/extra/package.json":   `{"name": "@acme/extra"}`,
		"packages/tool/package.json":    `{"name": "tool"}`,
		"packages/tool/vx.project.json": `{"dependsOn": ["@acme/utils"]}`,
	})
	tests := []struct {
		project          string
		deps, dependents []string
	}{
		{"app", []string{"@acme/extra", "@acme/theme", "@acme/ui", "@acme/utils"}, nil},
		{"@acme/ui", []string{"@acme/utils"}, []string{"app"}},
		{"@acme/utils", []string{}, []string{"@acme/ui", "app", "tool"}},
		{"tool", []string{"@acme/utils"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.project, func(t *testing.T) {
			p, ok := m.Project(tc.project)
			if !ok {
				t.Fatalf("no project %q", tc.project)
			}
			if !eq(p.Deps, tc.deps) {
				t.Errorf("deps = %v, want %v", p.Deps, tc.deps)
			}
			got := append([]string{}, p.Dependents...)
			sortStrings(got)
			if len(tc.dependents) > 0 && !eq(got, tc.dependents) || len(tc.dependents) == 0 && len(got) != 0 {
				t.Errorf("dependents = %v, want %v", got, tc.dependents)
			}
		})
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestLoadProjectErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{
			name: "project cycle names the path",
			files: map[string]string{
				"vx.workspace.json": `{"projects": ["p/*"]}`,
				"p/a/package.json":  `{"name": "a", "dependencies": {"b": "workspace:*"}}`,
				"p/b/package.json":  `{"name": "b", "devDependencies": {"c": "^1"}}`,
				"p/c/package.json":  `{"name": "c", "dependencies": {"a": "workspace:*"}}`,
			},
			want: []string{"cycle", "a → b → c → a"},
		},
		{
			name: "explicit dependsOn naming no project",
			files: map[string]string{
				"vx.workspace.json":     `{"projects": ["p/*"]}`,
				"p/web/package.json":    `{"name": "web"}`,
				"p/web/vx.project.json": `{"dependsOn": ["uii"]}`,
				"p/ui/package.json":     `{"name": "ui"}`,
			},
			want: []string{"vx.project.json", `"uii"`, "ui"},
		},
		{
			name: "two projects with one name",
			files: map[string]string{
				"vx.workspace.json": `{"projects": ["p/*"]}`,
				"p/a/package.json":  `{"name": "same"}`,
				"p/b/package.json":  `{"name": "same"}`,
			},
			want: []string{`"same"`, "p/a", "p/b"},
		},
		{
			name:  "no config",
			files: map[string]string{"package.json": `{}`},
			want:  []string{"vx.workspace.json"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.files)
			_, err := workspace.Load(root)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestFindRoot(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"vx.workspace.json": `{}`, "apps/web/src/x.ts": ""})
	tests := []struct {
		name, dir, want string
		err             error
	}{
		{"the root itself", root, root, nil},
		{"a deep subdirectory", filepath.Join(root, "apps", "web", "src"), root, nil},
		{"outside any workspace", t.TempDir(), "", workspace.ErrNoWorkspace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := workspace.FindRoot(tc.dir)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if got != tc.want {
				t.Errorf("root = %q, want %q", got, tc.want)
			}
		})
	}
	// A directory named vx.workspace.json is not a config.
	odd := t.TempDir()
	if err := os.Mkdir(filepath.Join(odd, "vx.workspace.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := workspace.FindRoot(odd); !errors.Is(err, workspace.ErrNoWorkspace) {
		t.Errorf("FindRoot on a dir named vx.workspace.json: err = %v", err)
	}
}

func TestLoadErrorColumnsCountCharacters(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"vx.workspace.json":     "{\"projects\": [\"apps/*\"], \"env\": [\"ÉTÉ\"], \"bogus\": 1}",
		"apps/web/package.json": `{"name": "web"}`,
	})
	_, err := workspace.Load(root)
	var fe *workspace.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("Load error = %v, want *FileError", err)
	}
	// "bogus" starts after 41 characters (43 bytes: É is two).
	if fe.Line != 1 || fe.Col != 42 {
		t.Errorf("position = %d:%d, want 1:42 (%s)", fe.Line, fe.Col, fe.Msg)
	}
}
