package plugins

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vzn/vx/internal/braces"
)

// matcher is a plugin's globs compiled once for a listing. Most plugin
// globs name a file at any depth ("**/vx-ref.json",
// "**/eslint.config.{js,mjs}"): those are answered by the base names,
// the brace alternatives expanded, with no glob matching per file; the
// other globs keep doublestar's matching, on the base name when the glob
// is "**/" and a pattern without a slash.
type matcher struct {
	names    []string        // base names a "**/NAME" glob matches literally
	nameSet  map[string]bool // names, when they are more than maxListedNames
	nameLens uint64          // bit min(len, 63) set for each name's length
	basePats []basePat       // base-name patterns of the other "**/NAME" globs
	full     []string        // the other globs, matched on the whole path
}

// basePat is a base-name pattern and the literal text it starts with
// (".eslintrc" of ".eslintrc*"): a name without it is no match, told
// without doublestar.
type basePat struct {
	pat, prefix string
}

// maxExpanded bounds a glob's brace expansion; a larger one is matched
// by doublestar instead.
const maxExpanded = 256

func compile(globs []string) matcher {
	var m matcher
	for _, g := range globs {
		rest, ok := strings.CutPrefix(g, "**/")
		if !ok || strings.Contains(rest, "/") || strings.Contains(rest, "**") {
			m.full = append(m.full, g)
			continue
		}
		if names, ok := expandBraces(rest); ok {
			m.names = append(m.names, names...)
			continue
		}
		prefix := rest
		if i := strings.IndexAny(rest, "*?[]{}\\"); i >= 0 {
			prefix = rest[:i]
		}
		m.basePats = append(m.basePats, basePat{pat: rest, prefix: prefix})
	}
	for _, n := range m.names {
		m.nameLens |= 1 << min(len(n), 63)
	}
	if len(m.names) > maxListedNames {
		m.nameSet = make(map[string]bool, len(m.names))
		for _, n := range m.names {
			m.nameSet[n] = true
		}
	}
	return m
}

// maxListedNames is the most names matched by comparing each.
const maxListedNames = 16

func (m *matcher) match(f string) bool {
	base := f[strings.LastIndexByte(f, '/')+1:] // a listed file's name is never empty
	// Most files have a name of a length no name has. A list unless
	// many: a plugin's names are mostly a few, and comparing a string
	// with one of another length costs nothing.
	if m.nameLens&(1<<min(len(base), 63)) != 0 {
		if m.nameSet != nil && m.nameSet[base] || m.nameSet == nil && slices.Contains(m.names, base) {
			return true
		}
	}
	for _, p := range m.basePats {
		if !strings.HasPrefix(base, p.prefix) {
			continue
		}
		if ok, _ := doublestar.Match(p.pat, base); ok {
			return true
		}
	}
	for _, g := range m.full {
		if ok, _ := doublestar.Match(g, f); ok {
			return true
		}
	}
	return false
}

// expandBraces lists the names pattern p matches when its only glob
// syntax is brace groups of literal alternatives
// ("{vite,vitest}.config.{ts,js}"); ok is false for any other pattern, or
// one of more than maxExpanded names.
func expandBraces(p string) ([]string, bool) {
	names, ok := braces.Expand(p, maxExpanded)
	if !ok || slices.ContainsFunc(names, func(n string) bool { return strings.ContainsAny(n, "*?[]{}\\") }) {
		return nil, false
	}
	return names, true
}

// Match lists the files matching any of globs, skipping node_modules,
// .git and .vx.
func Match(globs, files []string) []string {
	m := compile(globs)
	var out []string
	for _, f := range files {
		// Matched first: few files match, and the skip is the slower test.
		if m.match(f) && !skipped(f) {
			out = append(out, f)
		}
	}
	return out
}

// skipped reports whether f is under node_modules, .git or .vx, where no
// plugin glob matches.
func skipped(f string) bool {
	return strings.HasPrefix(f, ".vx/") || strings.HasPrefix(f, ".git/") || strings.HasPrefix(f, "node_modules/") || strings.Contains(f, "/node_modules/")
}

// maxGlob bounds one glob's length.
const maxGlob = 1024

// checkGlob refuses g unless it is a workspace-relative glob, the kind a
// plugin declares and a scope lists: matched against clean slash paths
// relative to the workspace root, with brace groups that multiply to at
// most maxGlobAlternatives.
func checkGlob(g string) error {
	switch {
	case g == "":
		return fmt.Errorf("an empty glob (write a workspace-relative glob such as \"packages/**\")")
	case len(g) > maxGlob:
		return fmt.Errorf("a glob longer than %d characters", maxGlob)
	case strings.HasPrefix(g, "/"):
		return fmt.Errorf("glob %q is not workspace-relative (no leading /, slashes only)", g)
	case dotSegment(g):
		return fmt.Errorf("glob %q has a . or .. segment: globs are matched against clean workspace-relative paths", g)
	case !doublestar.ValidatePattern(g):
		return fmt.Errorf("glob %q is not a valid glob", g)
	}
	return checkAlternatives(g)
}

// maxGlobAlternatives bounds the alternatives a glob's brace groups
// multiply to: doublestar tries each with the rest of the glob, for
// every path it matches.
const maxGlobAlternatives = 1024

// checkAlternatives refuses a glob whose brace groups multiply past
// maxGlobAlternatives.
func checkAlternatives(g string) error {
	if n, _ := braceAlternatives(g, 0, false); n > maxGlobAlternatives {
		return fmt.Errorf("glob %q has more than %d brace alternatives (its groups multiply): write fewer groups, or several globs", g, maxGlobAlternatives)
	}
	return nil
}

// braceAlternatives counts the alternatives of p from i, up to the end
// of the group it is in (group) or of p, and where it ended: groups in
// a row multiply, a group's alternatives add. Counts stop growing past
// maxGlobAlternatives.
func braceAlternatives(p string, i int, group bool) (int, int) {
	sum, prod := 0, 1
	for i < len(p) {
		switch c := p[i]; {
		case c == '\\':
			i += 2
		case c == '{':
			var n int
			n, i = braceAlternatives(p, i+1, true)
			prod = min(prod*n, maxGlobAlternatives+1)
		case c == ',' && group:
			sum, prod, i = min(sum+prod, maxGlobAlternatives+1), 1, i+1
		case c == '}' && group:
			return min(sum+prod, maxGlobAlternatives+1), i + 1
		default:
			i++
		}
	}
	return min(sum+prod, maxGlobAlternatives+1), i
}
