package runner

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vzn/vx/protocol/layout"
)

// reservedOutput reports whether a path (slash-separated, relative to the
// task's directory) lies in a directory no task output may: vx's own
// state (.vx/: the history, the cache, vxd's discovery file and its
// token) or git's (.git/: hooks run code). outputs never collects one and
// no entry holding one is restored, whatever the globs say.
func reservedOutput(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return first == layout.DirName || first == ".git"
}

// outputsAllow reports whether a path (slash-separated, relative to the
// task's directory) is one the task's outputs globs would collect, as
// outputs collects them: in order, a glob matching the path or one of its
// directories includes it, a "!" glob excludes it. A cache entry holding
// any other path was not made by this task and is never restored.
func outputsAllow(globs []string) func(string) bool {
	return func(p string) bool {
		if reservedOutput(p) {
			return false
		}
		in := false
		for _, g := range globs {
			neg := strings.HasPrefix(g, "!")
			pat := strings.TrimPrefix(strings.TrimPrefix(g, "!"), "./")
			if matchesOrUnder(pat, p) {
				in = !neg
			}
		}
		return in
	}
}

func matchesOrUnder(pat, p string) bool {
	for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if ok, err := doublestar.Match(pat, q); err == nil && ok {
			return true
		}
	}
	return false
}

// relSlash is p relative to dir, slash-separated.
func relSlash(dir, p string) string {
	rel, _ := filepath.Rel(dir, p)
	return filepath.ToSlash(rel)
}
