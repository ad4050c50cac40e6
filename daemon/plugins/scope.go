package plugins

import (
	"fmt"
	"strconv"
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

// CheckScopeGlob refuses a glob of include or exclude that is not a
// workspace-relative glob (checkGlob; a leading "!" apart), or that
// holds a backslash.
func CheckScopeGlob(g string) error {
	p := strings.TrimPrefix(g, "!")
	if strings.Contains(p, "\\") {
		return fmt.Errorf("glob %q is not workspace-relative (no leading /, slashes only)", g)
	}
	return checkGlob(p)
}

// Empty reports whether the scope limits nothing.
func (s Scope) Empty() bool { return len(s.Include) == 0 && len(s.Exclude) == 0 }

// Admits reports whether the workspace-relative path rel is in scope.
func (s Scope) Admits(rel string) bool { return s.compile().admits(rel) }

// AdmitsProject reports whether the project whose root is root
// (workspace-relative, "" or "." for the workspace root) is in scope. A
// list matches a project when it matches its root as a directory
// ("packages/*", as "projects" names directories) or its package.json
// ("packages/**/*", as Nx's plugins see a project by its files).
func (s Scope) AdmitsProject(root string) bool { return s.compile().admitsProject(root) }

// compiledScope is a Scope's globs made ready for matching many paths.
type compiledScope struct{ include, exclude []scopeGlob }

// scopeGlob is one glob of a list: "DIR/**" and "DIR/**/*" with a
// literal DIR (what scopes mostly are) are a prefix test, any other
// glob doublestar's match.
type scopeGlob struct {
	neg   bool
	pat   string // the glob without its "!"
	dir   string // DIR of "DIR/**" or "DIR/**/*" ("": pat is matched)
	below bool   // "DIR/**/*": a path below DIR, not DIR itself
}

func (s Scope) compile() compiledScope {
	return compiledScope{compileList(s.Include), compileList(s.Exclude)}
}

func compileList(globs []string) []scopeGlob {
	out := make([]scopeGlob, len(globs))
	for i, g := range globs {
		sg := scopeGlob{neg: strings.HasPrefix(g, "!"), pat: strings.TrimPrefix(g, "!")}
		if dir, ok := strings.CutSuffix(sg.pat, "/**/*"); ok && literal(dir) {
			sg.dir, sg.below = dir, true
		} else if dir, ok := strings.CutSuffix(sg.pat, "/**"); ok && literal(dir) {
			sg.dir = dir
		}
		out[i] = sg
	}
	return out
}

// literal reports whether p is a plain path: no glob syntax.
func literal(p string) bool { return p != "" && !strings.ContainsAny(p, "*?[]{}\\") }

func (g scopeGlob) match(rel string) bool {
	if g.dir == "" {
		ok, _ := doublestar.Match(g.pat, rel)
		return ok
	}
	if rel == g.dir {
		return !g.below
	}
	return len(rel) > len(g.dir) && rel[len(g.dir)] == '/' && strings.HasPrefix(rel, g.dir)
}

// matchesList applies globs to rel in order, the last matching glob
// deciding ("!" for out); a list starting with "!" starts from in.
func matchesList(globs []scopeGlob, rel string) bool {
	in := len(globs) > 0 && globs[0].neg
	for _, g := range globs {
		if g.match(rel) {
			in = !g.neg
		}
	}
	return in
}

func (c compiledScope) admits(rel string) bool {
	return (len(c.include) == 0 || matchesList(c.include, rel)) && !matchesList(c.exclude, rel)
}

func (c compiledScope) admitsProject(root string) bool {
	as := [2]string{"package.json"}
	n := 1
	if root != "" && root != "." {
		as, n = [2]string{root, root + "/package.json"}, 2
	}
	matches := func(globs []scopeGlob) bool {
		for _, p := range as[:n] {
			if matchesList(globs, p) {
				return true
			}
		}
		return false
	}
	return (len(c.include) == 0 || matches(c.include)) && !matches(c.exclude)
}

// files keeps the files in scope: files itself when the scope is empty.
func (s Scope) files(files []string) []string {
	if s.Empty() {
		return files
	}
	c := s.compile()
	out := make([]string, 0, len(files))
	for _, f := range files {
		if c.admits(f) {
			out = append(out, f)
		}
	}
	return out
}

// projects keeps the projects in scope: projects itself when the scope is
// empty (Seen's projectsKey is then shared by the load's plugins).
func (s Scope) projects(projects []plugin.Project) []plugin.Project {
	if s.Empty() {
		return projects
	}
	c := s.compile()
	out := make([]plugin.Project, 0, len(projects))
	for _, p := range projects {
		if c.admitsProject(p.Root) {
			out = append(out, p)
		}
	}
	return out
}

// matchScoped is Match(globs, files) kept to scope's, made once for each
// set of globs and scope (a load's begin and its tasks stage, and plugins
// declared alike, share it).
func (s *Seen) matchScoped(globs []string, scope Scope, files []string) []string {
	if scope.Empty() {
		return s.match(globs, files)
	}
	if s == nil {
		return scope.files(Match(globs, files))
	}
	// "[" opens no class it closes: no glob a plugin declares is it, so no
	// key of match's (its globs) is this one.
	parts := append([]string{"[scoped", strconv.Itoa(len(scope.Include)), strconv.Itoa(len(scope.Exclude))}, scope.Include...)
	parts = append(append(parts, scope.Exclude...), globs...)
	out, _ := remembered(&s.mu, &s.matches, key(parts...), func() ([]string, error) { return scope.files(s.match(globs, files)), nil })
	return out
}
