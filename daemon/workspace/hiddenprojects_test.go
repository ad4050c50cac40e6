package workspace_test

import (
	"slices"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// TestHiddenDirectoriesAreNeverProjects: a directory a project glob
// matches is no project when it, or a directory between the root and it,
// is hidden (its name starts with ".") or named node_modules, at any
// depth: packages/* matches packages/.git, which vxd's change journal
// never watches (a project there, or behind a link there, would change
// unseen by a run that repeats the last one).
func TestHiddenDirectoriesAreNeverProjects(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"vx.workspace.json":                  `{"projects": ["packages/*", "apps/**"]}`,
		"packages/a/package.json":            `{"name": "a"}`,
		"packages/.git/package.json":         `{"name": "in-git"}`,
		"packages/.cache/package.json":       `{"name": "in-cache"}`,
		"packages/node_modules/package.json": `{"name": "in-modules"}`,
		"apps/web/package.json":              `{"name": "web"}`,
		"apps/web/.git/x/package.json":       `{"name": "in-web-git"}`,
	})
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range m.Projects {
		got = append(got, p.Name)
	}
	if want := []string{"a", "web"}; !slices.Equal(got, want) {
		t.Fatalf("projects %q; want %q", got, want)
	}
}
