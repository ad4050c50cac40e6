package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vzn/vx/internal/anypath"
	"github.com/vzn/vx/protocol/wire"
)

// Selected is the outcome of Select.
type Selected struct {
	Projects []*Project
	Reasons  map[string]string // project → why it is affected (only under Affected)
	Base     string            // the git ref affected compared against
}

// Select narrows the projects by s's filters (a union of selectors, less
// the "!" ones; see selector) and then by affected (an intersection); s's
// tasks and force play no part.
func (m *Model) Select(ctx context.Context, s wire.Selection) (*Selected, error) {
	out := &Selected{Projects: m.Projects}
	if len(s.Filters) > 0 {
		keep, err := m.filtered(s.Filters)
		if err != nil {
			return nil, err
		}
		// Empty, never nil, when they keep none (...^web where nothing
		// depends on web, or web with !web): Build reads nil as every
		// project.
		out.Projects = []*Project{}
		for _, p := range m.Projects {
			if keep[p.Name] {
				out.Projects = append(out.Projects, p)
			}
		}
	}
	if s.Affected {
		reasons, base, err := m.Affected(ctx, s.AffectedRef)
		if err != nil {
			return nil, err
		}
		out.Reasons, out.Base = reasons, base
		var keep []*Project
		for _, p := range out.Projects {
			if _, ok := reasons[p.Name]; ok {
				keep = append(keep, p)
			}
		}
		out.Projects = keep
		if out.Projects == nil {
			out.Projects = []*Project{}
		}
	}
	return out, nil
}

// filtered is the names of the projects filters select: the union of
// what the selectors without "!" select (every project when all have
// one), less what the "!" ones select. A selector whose base matches no
// project is refused.
func (m *Model) filtered(filters []string) (map[string]bool, error) {
	keep, drop := map[string]bool{}, map[string]bool{}
	included := false
	for _, f := range filters {
		sel, err := parseSelector(f)
		if err != nil {
			return nil, err
		}
		matched, err := m.matchFilter(sel.base)
		if err != nil {
			return nil, err
		}
		if len(matched) == 0 {
			return nil, fmt.Errorf("--filter %q matches no project%s", f, closeHint(strings.TrimPrefix(sel.base, "tag:"), m.projectNames()))
		}
		into := keep
		if sel.exclude {
			into = drop
		} else {
			included = true
		}
		m.expand(matched, sel, into)
	}
	if !included {
		for _, p := range m.Projects {
			keep[p.Name] = true
		}
	}
	for name := range drop {
		delete(keep, name)
	}
	return keep, nil
}

// selector is one --filter value in Turborepo's (and pnpm's) forms: a
// base (a name or glob, tag:NAME, ./path/glob, or {./path/glob}) with
// "..." after it for its dependencies too, "..." before it for its
// dependents too (and their dependencies, with both), "^" beside the
// dots (web^..., ...^web; also ^web...) for those without the base's own
// projects, and "!" before all to leave them out.
type selector struct {
	base                     string
	exclude                  bool
	dependencies, dependents bool
	notSelf                  bool
}

// parseSelector reads f's selector; a base it leaves empty is refused.
func parseSelector(f string) (selector, error) {
	var sel selector
	rest := f
	rest, sel.exclude = strings.CutPrefix(rest, "!")
	if r, ok := strings.CutPrefix(rest, "..."); ok && !strings.HasPrefix(r, "/") {
		rest, sel.dependents = r, true
	}
	rest, sel.dependencies = strings.CutSuffix(rest, "...")
	if sel.dependencies {
		rest, sel.notSelf = strings.CutSuffix(rest, "^") // web^..., as turbo and pnpm write it
	}
	if sel.dependents || sel.dependencies {
		var caret bool
		rest, caret = strings.CutPrefix(rest, "^")
		sel.notSelf = sel.notSelf || caret
	}
	// {./apps/*} is a directory; {web,docs} stays a name glob.
	if inner, ok := strings.CutPrefix(rest, "{"); ok && strings.HasSuffix(inner, "}") && isPathFilter(inner) {
		rest = strings.TrimSuffix(inner, "}")
	}
	if ref, ok := gitRange(rest); ok {
		return sel, fmt.Errorf("--filter %q holds Turborepo's git range [%s], which a filter does not read here: use --affected=%s (the projects changed since it, and their dependents)", f, ref, strings.SplitN(ref, "...", 2)[0])
	}
	if rest == "" && f != "" {
		return sel, fmt.Errorf("--filter %q names no project: put a name, tag:NAME or ./path around its ... ^ !", f)
	}
	sel.base = rest
	return sel, nil
}

// gitRange is the ref of a selector base ending in Turborepo's git range
// ("[main]", "web...[HEAD^1]", "{./apps/*}[main]"): a "[...]" that starts
// the base or follows "}" or "...". A class inside a name glob ("[ud]*",
// "app-[ab]") is not one.
func gitRange(base string) (string, bool) {
	i := strings.LastIndexByte(base, '[')
	if i < 0 || !strings.HasSuffix(base, "]") || len(base)-i < 3 {
		return "", false
	}
	if before := base[:i]; before != "" && !strings.HasSuffix(before, "}") && !strings.HasSuffix(before, "...") {
		return "", false
	}
	return base[i+1 : len(base)-1], true
}

// expand adds to into the names sel selects from the projects its base
// matched.
func (m *Model) expand(matched []*Project, sel selector, into map[string]bool) {
	if !sel.notSelf {
		for _, p := range matched {
			into[p.Name] = true
		}
	}
	if sel.dependencies {
		m.walk(matched, func(p *Project) []string { return p.Deps }, into)
	}
	if sel.dependents {
		ups := map[string]bool{}
		m.walk(matched, func(p *Project) []string { return p.Dependents }, ups)
		var more []*Project
		for name := range ups {
			into[name] = true
			more = append(more, m.byName[name])
		}
		if sel.dependencies {
			m.walk(more, func(p *Project) []string { return p.Deps }, into)
		}
	}
}

// walk adds to into every project next reaches from from, transitively
// (from's own projects only when reached).
func (m *Model) walk(from []*Project, next func(*Project) []string, into map[string]bool) {
	seen := map[string]bool{}
	queue := slices.Clone(from)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, name := range next(p) {
			if !seen[name] && m.byName[name] != nil {
				seen[name], into[name] = true, true
				queue = append(queue, m.byName[name])
			}
		}
	}
}

func (m *Model) matchFilter(f string) ([]*Project, error) {
	if f == "" {
		return nil, fmt.Errorf("--filter needs a value: a project name or glob, tag:NAME, or ./path/glob")
	}
	var out []*Project
	switch {
	case strings.HasPrefix(f, "tag:"):
		tag := f[4:]
		for _, p := range m.Projects {
			for _, t := range p.Tags {
				if t == tag {
					out = append(out, p)
					break
				}
			}
		}
	case anypath.IsAbs(f, true):
		return nil, fmt.Errorf("--filter %s is an absolute path: name a project directory relative to the workspace root, as ./apps/web", quotePath(f))
	case isPathFilter(f):
		return m.matchDirs(f)
	default:
		if !doublestar.ValidatePattern(f) {
			return nil, fmt.Errorf("--filter %q is not a valid project glob", f)
		}
		for _, p := range m.Projects {
			if ok, _ := doublestar.Match(f, p.Name); ok || p.Name == f {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// isPathFilter reports whether a --filter names directories: it starts
// with "./" or "../" (or ".\" and "..\", typed on Windows), or is ".".
func isPathFilter(f string) bool {
	f = strings.ReplaceAll(f, `\`, "/")
	return strings.HasPrefix(f, "./") || strings.HasPrefix(f, "../") || f == "."
}

// matchDirs selects the projects whose directory matches the path filter
// f, relative to the root, its backslashes taken as separators on every
// OS. Where the file system folds case (FoldsCase), a directory named in
// another case is the same directory; elsewhere that is refused, naming
// the directory's own spelling.
func (m *Model) matchDirs(f string) ([]*Project, error) {
	pat := path.Clean(strings.TrimPrefix(strings.ReplaceAll(f, `\`, "/"), "./"))
	if !doublestar.ValidatePattern(pat) {
		return nil, fmt.Errorf("--filter %s is not a valid path glob", quotePath(f))
	}
	var out, folded []*Project
	for _, p := range m.Projects {
		if ok, _ := doublestar.Match(pat, p.Dir); ok {
			out = append(out, p)
		} else if ok, _ := doublestar.Match(strings.ToLower(pat), strings.ToLower(p.Dir)); ok {
			folded = append(folded, p)
		}
	}
	switch {
	case len(out) > 0 || len(folded) == 0:
		return out, nil
	case FoldsCase:
		return folded, nil
	}
	return nil, fmt.Errorf("--filter %s matches no project: ./%s differs from it only in case, which this file system tells apart", quotePath(f), folded[0].Dir)
}

// quotePath quotes a path as typed, its backslashes as they are ("C:\ws",
// not "C:\\ws"), unless it holds a character a terminal would act on.
func quotePath(p string) string {
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return `"` + p + `"`
}

// Affected maps each affected project to the reason: it has files changed
// against ref (default: the merge base with the default branch, plus
// uncommitted changes), or it depends on one that has.
func (m *Model) Affected(ctx context.Context, ref string) (map[string]string, string, error) {
	git := gitIn(ctx, m.Root)
	if _, err := git("rev-parse", "--show-toplevel"); err != nil {
		return nil, "", fmt.Errorf("--affected needs a git repository at %s: %w", m.Root, err)
	}
	base, err := affectedBase(git, ref)
	if err != nil {
		return nil, "", err
	}
	changed, err := changedFiles(git, base)
	if err != nil {
		return nil, "", err
	}
	return m.affectedReasons(changed), base, nil
}

// gitRunner runs git with args and returns its output.
type gitRunner func(args ...string) (string, error)

// gitIn runs git in dir; an error quotes git's stderr.
func gitIn(ctx context.Context, dir string) gitRunner {
	return func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(stderr.String()))
		}
		return string(b), nil
	}
}

// affectedBase checks ref, or when it is empty picks the merge base with
// the first of origin/HEAD, origin/main, origin/master, main and master
// there is, else HEAD.
func affectedBase(git gitRunner, ref string) (string, error) {
	base := ref
	if base == "" {
		for _, cand := range []string{"origin/HEAD", "origin/main", "origin/master", "main", "master"} {
			if mb, err := git("merge-base", "HEAD", cand); err == nil {
				base = strings.TrimSpace(mb)
				break
			}
		}
		if base == "" {
			base = "HEAD"
		}
	} else if strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("--affected=%s: a git ref never starts with \"-\" (use a branch, tag or commit)", ref)
	} else if _, err := git("rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return "", fmt.Errorf("--affected=%s: not a git ref here (use a branch, tag or commit)", ref)
	}
	return base, nil
}

// changedFiles lists, sorted and relative to the working directory's
// place in the repository, the files changed since base and the untracked
// files git does not ignore.
func changedFiles(git gitRunner, base string) ([]string, error) {
	prefix, _ := git("rev-parse", "--show-prefix")
	prefix = strings.TrimSpace(prefix)
	var changed []string
	add := func(out string) {
		for _, l := range strings.Split(out, "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			if prefix != "" {
				if !strings.HasPrefix(l, prefix) {
					continue
				}
				l = strings.TrimPrefix(l, prefix)
			}
			changed = append(changed, l)
		}
	}
	diff, err := git("diff", "--name-only", base)
	if err != nil {
		return nil, err
	}
	add(diff)
	untracked, err := git("ls-files", "--others", "--exclude-standard", "--full-name")
	if err == nil {
		add(untracked)
	}
	sort.Strings(changed)
	return changed, nil
}

// affectedReasons says why each project is affected by the changed files:
// a global input changed (all are), a file of its own changed, or it
// depends on an affected project.
func (m *Model) affectedReasons(changed []string) map[string]string {
	reasons := map[string]string{}
	global := map[string]bool{ConfigFile: true}
	for _, g := range m.Config.GlobalInputs {
		global[g] = true
	}
	for _, f := range changed {
		if global[f] || MatchesAny(m.Config.GlobalInputs, f) {
			for _, p := range m.Projects {
				if _, ok := reasons[p.Name]; !ok {
					reasons[p.Name] = "global input changed: " + f
				}
			}
			continue
		}
		if p := m.ProjectOf(f); p != nil {
			if _, ok := reasons[p.Name]; !ok {
				reasons[p.Name] = "changed: " + f
			}
		}
	}
	// Dependents of affected projects, breadth first.
	queue := sortedKeys(reasons)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, d := range m.byName[name].Dependents {
			if _, ok := reasons[d]; !ok {
				reasons[d] = "depends on " + name
				queue = append(queue, d)
			}
		}
	}
	return reasons
}

// ProjectOf returns the project whose directory holds rel (slash path
// relative to the root), the deepest one when projects nest.
func (m *Model) ProjectOf(rel string) *Project {
	m.dirsOnce.Do(func() {
		m.byDir = make(map[string]*Project, len(m.Projects))
		for _, p := range m.Projects {
			m.byDir[p.Dir] = p
		}
	})
	// Walk up the path: the first directory that is a project is the
	// deepest one holding rel.
	for dir := rel; ; {
		if p, ok := m.byDir[dir]; ok {
			return p
		}
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			return nil
		}
		dir = dir[:i]
	}
}

// MatchesAny reports whether the slash path f matches one of globs.
func MatchesAny(globs []string, f string) bool {
	for _, g := range globs {
		if MatchGlob(g, f) {
			return true
		}
	}
	return false
}

// MatchGlob is doublestar.Match(g, f), a malformed glob matching nothing,
// with the two shapes most inputs and outputs take answered by string
// comparison: a literal path ("package.json"), and a literal directory and
// everything under it ("src/**", which doublestar also matches with the
// directory itself). A run of 1,000 packages matches 11,000 files against
// four globs each.
func MatchGlob(g, f string) bool {
	if !hasGlobMeta(g) {
		return g == f
	}
	if dir, ok := strings.CutSuffix(g, "/**"); ok && !hasGlobMeta(dir) {
		return f == dir || (len(f) > len(dir) && f[len(dir)] == '/' && f[:len(dir)] == dir)
	}
	ok, _ := doublestar.Match(g, f)
	return ok
}

// hasGlobMeta reports whether g has a character doublestar gives a
// meaning. A byte loop: MatchGlob asks it twice of each glob for each
// file, and strings.ContainsAny looked for each of the seven in turn.
func hasGlobMeta(g string) bool {
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '*', '?', '[', ']', '{', '}', '\\':
			return true
		}
	}
	return false
}
