package workspace

import (
	"errors"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/vzn/vx/daemon/hashing"
)

// errLinkFound ends ProjectGlobLink's walk at the first link.
var errLinkFound = errors.New("a symbolic link")

// ProjectGlobLink names (absolute) the first path the workspace's
// project globs reach through a symbolic link ("" when none does): a
// directory the globs start from that is (or is beneath) a link, or a
// match that is one, project or not yet. What is made or edited behind such a link (a new
// project's manifest, an edited one) is reported for no path of the
// workspace that a watch on its directories sees. direct, when set, is
// told of each directory the walk proves reached without a link: a match
// of a glob whose only pattern is its last segment (packages/*), a
// directory entry beneath a base that linkAbove cleared.
func (m *Model) ProjectGlobLink(direct func(abs string)) string {
	for _, g := range m.projectPatterns() {
		pat := g.pat
		if p := linkAbove(m.Root, g.base); p != "" {
			return p
		}
		found := ""
		oneLevel := direct != nil && !g.negated && lastSegmentOnly(pat)
		_ = doublestar.GlobWalk(os.DirFS(m.Root), pat, func(p string, d fs.DirEntry) error {
			if d.Type()&fs.ModeSymlink != 0 {
				found = filepath.Join(m.Root, filepath.FromSlash(p))
				return errLinkFound
			}
			if oneLevel && d.IsDir() {
				direct(filepath.Join(m.Root, filepath.FromSlash(p)))
			}
			return nil
		})
		if found != "" {
			return found
		}
	}
	return ""
}

// ProjectGlobsWithin reports whether every path the project globs reach
// is a named path, or an entry of one directory (packages/*), under a
// directory covered says is watched (rel slash paths; never the root's
// own entries): then a symbolic link made where the globs reach is made
// in a watched directory, or replaces one.
func (m *Model) ProjectGlobsWithin(covered func(rel string) bool) bool {
	for _, g := range m.projectPatterns() {
		if hasGlobMeta(g.pat) && !lastSegmentOnly(g.pat) || g.base == "." || g.base == "" || !covered(g.base) || !covered(g.pat) {
			return false
		}
	}
	return true
}

// projectPattern is a project glob as the walks above read it: its
// pattern without "!", "./" or a leading or trailing "/", whether it was
// negated, and the directory it starts from.
type projectPattern struct {
	pat, base string
	negated   bool
}

// projectPatterns are the workspace's valid project globs (Load refused
// the others), in order.
func (m *Model) projectPatterns() []projectPattern {
	var out []projectPattern
	for _, g := range m.projectGlobList() {
		pat := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(g, "!"), "./"), "/")
		pat = strings.TrimSuffix(pat, "/")
		if !doublestar.ValidatePattern(pat) {
			continue
		}
		base, _ := doublestar.SplitPattern(pat)
		out = append(out, projectPattern{pat: pat, base: base, negated: strings.HasPrefix(g, "!")})
	}
	return out
}

// lastSegmentOnly reports whether pat's only pattern is in its last
// segment, and is no "**": its matches are entries of one directory.
func lastSegmentOnly(pat string) bool {
	dir, last := pathpkg.Split(pat)
	return !strings.Contains(last, "**") && !hasGlobMeta(dir)
}

// projectGlobList is the globs naming the projects, as Load reads them.
func (m *Model) projectGlobList() []string {
	if len(m.Config.Projects) > 0 {
		return m.Config.Projects
	}
	if rp, err := readPackageJSON(filepath.Join(m.Root, "package.json")); err == nil {
		if g := rp.workspaceGlobs(); len(g) > 0 {
			return g
		}
	}
	if b, err := os.ReadFile(filepath.Join(m.Root, "pnpm-workspace.yaml")); err == nil {
		return parsePnpmPackages(b)
	}
	return nil
}

// linkAbove names the first component of the slash path rel under root
// that is a symbolic link, "" when none is (or rel is ".").
func linkAbove(root, rel string) string {
	if rel == "." || rel == "" {
		return ""
	}
	p := root
	for _, seg := range strings.Split(rel, "/") {
		p = filepath.Join(p, seg)
		var st hashing.Stat
		if err := hashing.Lstat(p, &st); err != nil {
			return "" // gone: nothing behind it either
		}
		if st.Symlink() {
			return p
		}
	}
	return ""
}
