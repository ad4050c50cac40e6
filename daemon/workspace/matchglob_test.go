package workspace

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// MatchGlob answers literal and "dir/**" globs without doublestar: it must
// answer every glob exactly as doublestar does.
func TestMatchGlobIsDoublestar(t *testing.T) {
	globs := []string{"package.json", "src/**", "dist/**", "src", "src/", "/**", "**", "a/b/**", "a/b",
		"src/*.js", "src/**/*.ts", "[ab]/**", "a\\*/**", "{a,b}/**", "src/**/", "src/**x", ".env", "a/**/b", "", "src/[", "?/**"}
	files := []string{"package.json", "src", "src/", "src/a.js", "src/x/y.ts", "srcx/a", "srcx", "dist", "dist/index.js",
		"a/b", "a/b/c", "a/bc", "a*/c", "b/c", ".env", "x/.env", "", "/", "/a", "src//a", "a/x/b", "src/[", "s/c"}
	for _, g := range globs {
		for _, f := range files {
			want, _ := doublestar.Match(g, f)
			if got := MatchGlob(g, f); got != want {
				t.Errorf("MatchGlob(%q, %q) = %v, doublestar says %v", g, f, got, want)
			}
		}
	}
}
