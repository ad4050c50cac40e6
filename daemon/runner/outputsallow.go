package runner

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// outputsAllow reports whether a path (slash-separated, relative to the
// task's directory) is one the task's outputs globs would collect, as
// outputs collects them: in order, a glob matching the path or one of its
// directories includes it, a "!" glob excludes it. A cache entry holding
// any other path was not made by this task and is never restored.
func outputsAllow(globs []string) func(string) bool {
	return func(p string) bool {
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
