package workspace_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/wine"
)

// TestProjectGlobLink: a link the project globs start from, match or walk
// is named, project or not; a workspace without one names none.
func TestProjectGlobLink(t *testing.T) {
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, glob, link string
		want             string
	}{
		{"none", "packages/*", "", ""},
		{"a match", "packages/*", "packages/ext", "packages/ext"},
		{"the glob's base", "libs/*", "libs", "libs"},
		{"under a double star", "packages/**", "packages/deep/ext", "packages/deep/ext"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{
				"vx.workspace.json":       `{"projects": ["` + c.glob + `"]}`,
				"packages/a/package.json": `{"name": "a"}`,
				"packages/deep/.keep":     "",
				"libs/.keep":              "",
			})
			if c.link != "" {
				wine.NeedSymlinks(t)
				p := filepath.Join(root, filepath.FromSlash(c.link))
				if c.link == "libs" {
					if err := os.RemoveAll(p); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Symlink(filepath.Join(outside, "empty"), p); err != nil {
					t.Fatal(err)
				}
			}
			m, err := workspace.Load(root)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if c.want != "" {
				want = filepath.Join(root, filepath.FromSlash(c.want))
			}
			if got := m.ProjectGlobLink(nil); got != want {
				t.Fatalf("ProjectGlobLink() = %q, want %q", got, want)
			}
		})
	}
}

// TestProjectGlobLinkTellsOfDirectDirs: a one-level glob tells of each directory it
// matches (reached without a link); a deeper glob tells of none, since a
// match beneath a linked directory would not itself be a link.
func TestProjectGlobLinkTellsOfDirectDirs(t *testing.T) {
	for glob, want := range map[string][]string{"packages/*": {"packages/a", "packages/b"}, "packages/**": nil, "*/a": nil} {
		root := t.TempDir()
		writeTree(t, root, map[string]string{
			"vx.workspace.json":       `{"projects": ["` + glob + `"]}`,
			"packages/a/package.json": `{"name": "a"}`,
			"packages/b/package.json": `{"name": "b"}`,
			"packages/file.txt":       "",
		})
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		if link := m.ProjectGlobLink(func(abs string) { got = append(got, abs) }); link != "" {
			t.Fatalf("%s: a link %s where there is none", glob, link)
		}
		var wantAbs []string
		for _, w := range want {
			wantAbs = append(wantAbs, filepath.Join(root, filepath.FromSlash(w)))
		}
		if !slices.Equal(got, wantAbs) {
			t.Errorf("%s: told of %q, want %q", glob, got, wantAbs)
		}
	}
}

// TestProjectGlobsWithin: the link check may be answered by the journal
// only where every path the project globs reach is a named path or an
// entry of one watched directory, never the root's own entries, never a
// walk below (a double star, a pattern in a middle segment).
func TestProjectGlobsWithin(t *testing.T) {
	covered := func(rel string) bool { return !strings.Contains(rel, "node_modules") }
	for _, c := range []struct {
		globs string
		want  bool
	}{
		{`["packages/*"]`, true},
		{`["packages/*", "apps/web", "!packages/old"]`, true},
		{`["packages/**"]`, false},
		{`["*/pkg"]`, false},
		{`["*"]`, false},
		{`["node_modules/@x/*"]`, false},
	} {
		root := t.TempDir()
		writeTree(t, root, map[string]string{"vx.workspace.json": `{"projects": ` + c.globs + `}`, "packages/a/package.json": `{"name": "a"}`})
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.ProjectGlobsWithin(covered); got != c.want {
			t.Errorf("%s: %v; want %v", c.globs, got, c.want)
		}
	}
}
