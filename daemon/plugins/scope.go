package plugins

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/vzn/vx/protocol/plugin"
)

// Scope is a declaration's "include" and "exclude": workspace-relative
// globs that limit what a plugin is sent, as Nx's plugin registrations
// do. A path is in scope when include is empty or admits it, and exclude
// does not. In either list a glob starting with "!" takes back what the
// globs before it matched (the last glob matching a path decides; a list
// starting with "!" starts from every path), as in Nx.
type Scope struct {
	Include []string
	Exclude []string
}

// MaxScopeGlobs bounds each of a declaration's include and exclude.
const MaxScopeGlobs = 64

// maxScopeGlob bounds one glob's length.
const maxScopeGlob = 1024

// CheckScopeGlob refuses a glob of include or exclude that is not a
// workspace-relative glob.
func CheckScopeGlob(g string) error {
	p := strings.TrimPrefix(g, "!")
	switch {
	case p == "":
		return fmt.Errorf("an empty glob (write a workspace-relative glob such as \"packages/**\")")
	case len(g) > maxScopeGlob:
		return fmt.Errorf("a glob longer than %d characters", maxScopeGlob)
	case strings.HasPrefix(p, "/") || strings.Contains(p, "\\"):
		return fmt.Errorf("glob %q is not workspace-relative (no leading /, slashes only)", g)
	case dotSegment(p):
		return fmt.Errorf("glob %q has a . or .. segment: globs are matched against clean workspace-relative paths", g)
	case !doublestar.ValidatePattern(p):
		return fmt.Errorf("glob %q is not a valid glob", g)
	}
	return nil
}

// Empty reports whether the scope limits nothing.
func (s Scope) Empty() bool { return len(s.Include) == 0 && len(s.Exclude) == 0 }

// Admits reports whether the workspace-relative path rel is in scope.
func (s Scope) Admits(rel string) bool {
	return (len(s.Include) == 0 || matchesList(s.Include, rel)) && !matchesList(s.Exclude, rel)
}

// matchesList applies globs to rel in order, the last matching glob
// deciding ("!" for out); a list starting with "!" starts from in.
func matchesList(globs []string, rel string) bool {
	in := len(globs) > 0 && strings.HasPrefix(globs[0], "!")
	for _, g := range globs {
		neg := strings.HasPrefix(g, "!")
		if ok, _ := doublestar.Match(strings.TrimPrefix(g, "!"), rel); ok {
			in = !neg
		}
	}
	return in
}

// files keeps the files in scope: files itself when the scope is empty.
func (s Scope) files(files []string) []string {
	if s.Empty() {
		return files
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		if s.Admits(f) {
			out = append(out, f)
		}
	}
	return out
}

// AdmitsProject reports whether the project whose root is root
// (workspace-relative, "" or "." for the workspace root) is in scope. A
// list matches a project when it matches its root as a directory
// ("packages/*", as "projects" names directories) or its package.json
// ("packages/**/*", as Nx's plugins see a project by its files).
func (s Scope) AdmitsProject(root string) bool {
	as := []string{"package.json"}
	if root != "" && root != "." {
		as = []string{root, root + "/package.json"}
	}
	matches := func(globs []string) bool {
		for _, p := range as {
			if matchesList(globs, p) {
				return true
			}
		}
		return false
	}
	return (len(s.Include) == 0 || matches(s.Include)) && !matches(s.Exclude)
}

// projects keeps the projects in scope: projects itself when the scope is
// empty (Seen's projectsKey is then shared by the load's plugins).
func (s Scope) projects(projects []plugin.Project) []plugin.Project {
	if s.Empty() {
		return projects
	}
	out := make([]plugin.Project, 0, len(projects))
	for _, p := range projects {
		if s.AdmitsProject(p.Root) {
			out = append(out, p)
		}
	}
	return out
}
