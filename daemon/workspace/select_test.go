package workspace_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// selectWorkspace: web → ui → utils, docs standalone, admin → ui.
var selectWorkspace = map[string]string{
	"vx.workspace.json":           `{"projects": ["apps/*", "packages/*"], "globalInputs": ["tsconfig.base.json", "config/*.json"]}`,
	"tsconfig.base.json":          `{}`,
	"config/eslint.json":          `{}`,
	"README.md":                   "root readme",
	"apps/web/package.json":       `{"name": "@acme/web", "dependencies": {"@acme/ui": "workspace:*"}}`,
	"apps/web/vx.project.json":    `{"tags": ["frontend", "app"]}`,
	"apps/admin/package.json":     `{"name": "admin", "dependencies": {"@acme/ui": "workspace:*"}}`,
	"apps/admin/vx.project.json":  `{"tags": ["app"]}`,
	"apps/docs/package.json":      `{"name": "docs"}`,
	"packages/ui/package.json":    `{"name": "@acme/ui", "dependencies": {"utils": "^1"}}`,
	"packages/ui/src/button.ts":   "export {}",
	"packages/utils/package.json": `{"name": "utils", "version": "1.0.0"}`,
	"packages/utils/src/index.ts": "export {}",
}

func TestSelectFilters(t *testing.T) {
	m := loadTree(t, selectWorkspace)
	tests := []struct {
		name    string
		filters []string
		want    []string
		wantErr []string
	}{
		{"no filter selects all", nil, []string{"@acme/ui", "@acme/web", "admin", "docs", "utils"}, nil},
		{"exact name", []string{"docs"}, []string{"docs"}, nil},
		{"scoped name", []string{"@acme/web"}, []string{"@acme/web"}, nil},
		{"name glob", []string{"@acme/*"}, []string{"@acme/ui", "@acme/web"}, nil},
		{"tag", []string{"tag:app"}, []string{"@acme/web", "admin"}, nil},
		{"path glob", []string{"./apps/*"}, []string{"@acme/web", "admin", "docs"}, nil},
		{"one path", []string{"./packages/ui"}, []string{"@acme/ui"}, nil},
		{"union of filters", []string{"tag:frontend", "utils"}, []string{"@acme/web", "utils"}, nil},
		{"no match names the filter and close names", []string{"dcos"}, nil, []string{`"dcos"`, "docs"}},
		{"unknown tag", []string{"tag:backend"}, nil, []string{`"tag:backend"`, "matches no project"}},
		{"path matching nothing", []string{"./tools/*"}, nil, []string{`"./tools/*"`}},
		{"empty filter", []string{""}, nil, []string{"--filter"}},
		{"invalid glob", []string{"[web"}, nil, []string{`"[web"`}},
		// Turborepo's (and pnpm's) selectors around those forms.
		{"with its dependencies", []string{"@acme/web..."}, []string{"@acme/ui", "@acme/web", "utils"}, nil},
		{"with its dependents", []string{"...utils"}, []string{"@acme/ui", "@acme/web", "admin", "utils"}, nil},
		{"its dependents alone", []string{"...^utils"}, []string{"@acme/ui", "@acme/web", "admin"}, nil},
		{"its dependencies alone", []string{"^@acme/web..."}, []string{"@acme/ui", "utils"}, nil},
		// Turborepo and pnpm write the caret before the trailing dots.
		{"its dependencies alone, as turbo writes it", []string{"@acme/web^..."}, []string{"@acme/ui", "utils"}, nil},
		{"an excluded braced path's dependencies alone", []string{"!{./apps/web}^..."}, []string{"@acme/web", "admin", "docs"}, nil},
		// Turborepo's git ranges are --affected here, not a glob's class
		// ("[main]" matched the projects named m, a, i or n).
		{"a git range", []string{"[main]"}, nil, []string{`"[main]"`, "--affected=main"}},
		{"dependents of a git range", []string{"...[origin/main]"}, nil, []string{"--affected=origin/main"}},
		{"a name since a ref", []string{"@acme/web...[HEAD^1]"}, nil, []string{"--affected=HEAD^1"}},
		{"a class in a name glob stays one", []string{"[ud]*"}, []string{"docs", "utils"}, nil},
		{"a caret with no dots", []string{"@acme/web^"}, nil, []string{`"@acme/web^"`, "matches no project"}},
		{"dependents and their dependencies", []string{"...@acme/ui..."}, []string{"@acme/ui", "@acme/web", "admin", "utils"}, nil},
		{"a tag with its dependencies", []string{"tag:frontend..."}, []string{"@acme/ui", "@acme/web", "utils"}, nil},
		{"a braced path", []string{"{./packages/*}"}, []string{"@acme/ui", "utils"}, nil},
		{"dependents of a braced path", []string{"...^{./packages/ui}"}, []string{"@acme/web", "admin"}, nil},
		{"an exclusion alone starts from all", []string{"!docs"}, []string{"@acme/ui", "@acme/web", "admin", "utils"}, nil},
		{"an exclusion narrows the union", []string{"./apps/*", "!docs"}, []string{"@acme/web", "admin"}, nil},
		{"an excluded glob", []string{"!@acme/*"}, []string{"admin", "docs", "utils"}, nil},
		{"an excluded project's dependencies", []string{"!@acme/web..."}, []string{"admin", "docs"}, nil},
		{"an exclusion matching nothing", []string{"!dcos"}, nil, []string{`"!dcos"`, "matches no project", "docs"}},
		{"dots alone", []string{"..."}, nil, []string{`"..."`, "names no project"}},
		{"an unclosed brace", []string{"{./apps/web"}, nil, []string{`"{./apps/web"`}},
		{"name alternatives stay a glob", []string{"{docs,admin}"}, []string{"admin", "docs"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := m.Select(context.Background(), wire.Selection{Filters: tc.filters})
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("Select succeeded with %v, want an error", projectNames(sel.Projects))
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if got := projectNames(sel.Projects); !eq(got, tc.want) {
				t.Errorf("selected = %v, want %v", got, tc.want)
			}
		})
	}
}

// gitWorkspace makes a git repository at dir holding the select workspace
// under sub ("" for the repository root), commits it and returns the
// workspace root and the first commit.
func gitWorkspace(t *testing.T, sub string) (string, string) {
	t.Helper()
	repo := t.TempDir()
	root := filepath.Join(repo, sub)
	writeTree(t, root, selectWorkspace)
	writeTree(t, repo, map[string]string{".gitignore": "dist/\n"})
	gitCmd(t, repo, "init", "-q")
	gitCmd(t, repo, "add", "-A")
	gitCmd(t, repo, "commit", "-q", "-m", "init")
	return root, gitCmd(t, repo, "rev-parse", "HEAD")
}

func TestAffected(t *testing.T) {
	tests := []struct {
		name    string
		sub     string            // workspace dir inside the repository
		commit  bool              // commit the edits (then compare with the first commit)
		edits   map[string]string // relative to the workspace root
		ref     string            // "first" = the first commit
		want    map[string]string // project → reason prefix
		filters []string
	}{
		{
			name:  "an uncommitted change selects the project and its dependents",
			edits: map[string]string{"packages/ui/src/button.ts": "export const x = 1"},
			want: map[string]string{
				"@acme/ui":  "changed: packages/ui/src/button.ts",
				"@acme/web": "depends on @acme/ui",
				"admin":     "depends on @acme/ui",
			},
		},
		{
			name:  "dependents of dependents",
			edits: map[string]string{"packages/utils/src/index.ts": "export const y = 2"},
			want: map[string]string{
				"utils":     "changed: packages/utils/src/index.ts",
				"@acme/ui":  "depends on utils",
				"@acme/web": "depends on @acme/ui",
				"admin":     "depends on @acme/ui",
			},
		},
		{
			name:  "an untracked file counts",
			edits: map[string]string{"apps/docs/new.md": "hi"},
			want:  map[string]string{"docs": "changed: apps/docs/new.md"},
		},
		{
			name:  "an ignored file does not count",
			edits: map[string]string{"apps/docs/dist/out.js": "x"},
			want:  map[string]string{},
		},
		{
			name:  "a root file outside any project selects nothing",
			edits: map[string]string{"README.md": "changed"},
			want:  map[string]string{},
		},
		{
			name:  "a global input selects every project",
			edits: map[string]string{"tsconfig.base.json": `{"strict": true}`},
			want: map[string]string{
				"@acme/ui": "global input changed: tsconfig.base.json", "@acme/web": "global input", "admin": "global input",
				"docs": "global input", "utils": "global input",
			},
		},
		{
			name:  "a global input glob selects every project",
			edits: map[string]string{"config/eslint.json": `{"x": 1}`},
			want: map[string]string{
				"@acme/ui": "global input changed: config/eslint.json", "@acme/web": "global input", "admin": "global input",
				"docs": "global input", "utils": "global input",
			},
		},
		{
			name:   "committed change against an explicit ref",
			commit: true,
			ref:    "first",
			edits:  map[string]string{"apps/web/src/page.ts": "export {}"},
			want:   map[string]string{"@acme/web": "changed: apps/web/src/page.ts"},
		},
		{
			name:   "committed change is not affected against HEAD",
			commit: true,
			ref:    "HEAD",
			edits:  map[string]string{"apps/web/src/page.ts": "export {}"},
			want:   map[string]string{},
		},
		{
			name:  "workspace in a subdirectory of the repository",
			sub:   "ws",
			edits: map[string]string{"packages/ui/src/button.ts": "export const x = 1"},
			want: map[string]string{
				"@acme/ui": "changed: packages/ui/src/button.ts", "@acme/web": "depends on", "admin": "depends on",
			},
		},
		{
			name:    "filters intersect with affected",
			edits:   map[string]string{"packages/ui/src/button.ts": "export const x = 1"},
			filters: []string{"tag:frontend"},
			want:    map[string]string{"@acme/web": "depends on @acme/ui"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, first := gitWorkspace(t, tc.sub)
			writeTree(t, root, tc.edits)
			if tc.commit {
				gitCmd(t, root, "add", "-A")
				gitCmd(t, root, "commit", "-q", "-m", "edit")
			}
			ref := tc.ref
			if ref == "first" {
				ref = first
			}
			m, err := workspace.Load(root)
			if err != nil {
				t.Fatal(err)
			}
			sel, err := m.Select(context.Background(), wire.Selection{Affected: true, AffectedRef: ref, Filters: tc.filters})
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			got := projectNames(sel.Projects)
			var want []string
			for name := range tc.want {
				if len(tc.filters) == 0 || name == "@acme/web" {
					want = append(want, name)
				}
			}
			sortStrings(want)
			if !eq(got, want) {
				t.Errorf("affected = %v, want %v (reasons %v)", got, want, sel.Reasons)
			}
			for name, reason := range tc.want {
				if !strings.HasPrefix(sel.Reasons[name], reason) {
					t.Errorf("reason for %s = %q, want prefix %q", name, sel.Reasons[name], reason)
				}
			}
			if sel.Base == "" {
				t.Error("Base is empty")
			}
		})
	}
}

func TestAffectedErrors(t *testing.T) {
	t.Run("bad ref names it", func(t *testing.T) {
		root, _ := gitWorkspace(t, "")
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = m.Affected(context.Background(), "no-such-branch")
		if err == nil || !strings.Contains(err.Error(), "no-such-branch") {
			t.Errorf("err = %v, want one naming the ref", err)
		}
	})
	t.Run("outside git", func(t *testing.T) {
		root := t.TempDir()
		writeTree(t, root, selectWorkspace)
		// A private GIT_CEILING_DIRECTORIES keeps git from finding a
		// repository above the temp dir.
		t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(root))
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = m.Affected(context.Background(), "")
		if err == nil || !strings.Contains(err.Error(), "git") {
			t.Errorf("err = %v, want one saying --affected needs git", err)
		}
	})
}

func TestProjectOf(t *testing.T) {
	m := loadTree(t, map[string]string{
		"vx.workspace.json":               `{"projects": ["apps/*", "apps/web/plugins/*"]}`,
		"apps/web/package.json":           `{"name": "web"}`,
		"apps/web/plugins/x/package.json": `{"name": "x"}`,
		"apps/webby/package.json":         `{"name": "webby"}`,
	})
	tests := []struct{ rel, want string }{
		{"apps/web/src/a.ts", "web"},
		{"apps/web/plugins/x/a.ts", "x"},
		{"apps/webby/a.ts", "webby"},
		{"apps/web", "web"},
		{"README.md", ""},
	}
	for _, tc := range tests {
		t.Run(tc.rel, func(t *testing.T) {
			got := ""
			if p := m.ProjectOf(tc.rel); p != nil {
				got = p.Name
			}
			if got != tc.want {
				t.Errorf("ProjectOf(%q) = %q, want %q", tc.rel, got, tc.want)
			}
		})
	}
}
