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
	if got, want := loadedProjectNames(t, root), []string{"a", "web"}; !slices.Equal(got, want) {
		t.Fatalf("projects %q; want %q", got, want)
	}
}

// TestAGlobNamingAHiddenDirectoryMatchesIt: a hidden directory a glob
// names with a segment of its own starting with "." is matched, as pnpm
// and turbo match it (trpc's pnpm-workspace.yaml lists "examples/.*/*",
// twelve packages vx left out); "*" and "**" still match no hidden
// directory, and .git, .vx and node_modules are never projects, named or
// not (vxd's change journal never watches them).
func TestAGlobNamingAHiddenDirectoryMatchesIt(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"vx.workspace.json":                   `{"projects": ["examples/*", "examples/.*/*", "tools/**/.fixtures/*", ".git/*", "apps/.vx", "apps/*/.*"]}`,
		"examples/plain/package.json":         `{"name": "plain"}`,
		"examples/.hidden/package.json":       `{"name": "hidden-by-star"}`,
		"examples/.test/ssg/package.json":     `{"name": "ssg"}`,
		"examples/.test/.deeper/package.json": `{"name": "deeper-by-star"}`,
		"tools/a/b/.fixtures/f/package.json":  `{"name": "fixture"}`,
		"tools/.a/.fixtures/g/package.json":   `{"name": "hidden-by-globstar"}`,
		".git/x/package.json":                 `{"name": "in-git"}`,
		"apps/.vx/package.json":               `{"name": "in-vx"}`,
		"apps/web/.git/package.json":          `{"name": "web-git"}`,
		"apps/web/.storybook/package.json":    `{"name": "storybook"}`,
	})
	if got, want := loadedProjectNames(t, root), []string{"fixture", "plain", "ssg", "storybook"}; !slices.Equal(got, want) {
		t.Fatalf("projects %q; want %q", got, want)
	}
}

// loadedProjectNames loads the workspace at root and answers its
// projects' names, sorted.
func loadedProjectNames(t *testing.T, root string) []string {
	t.Helper()
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range m.Projects {
		got = append(got, p.Name)
	}
	slices.Sort(got)
	return got
}
