package plugins

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestMatchAgreesWithDoublestar: however a glob is compiled (base names
// expanded from braces, a base-name pattern, a whole-path pattern), a file
// matches exactly when doublestar says it does.
func TestMatchAgreesWithDoublestar(t *testing.T) {
	globs := []string{
		"**/vx-ref.json", "**/{vitest,vite}.config.{ts,mts,cts,js,mjs,cjs}", "**/eslint.config.{js,}",
		"**/*.spec.ts", "**/{a,b,c,d,e,f,g,h}{1,2,3}.json", "**/a{b", "**/x}y", "**/{a,{b,c}}.json", "src/**/*.go", "**/lib/x.json", "**/[ab].txt", "**/\\*.md",
		"**/.eslintrc*", "**/.eslintrc{,.json}", "**/x?y.json", "**/pre[ab]*", "**/llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll.json",
	}
	files := []string{
		"vx-ref.json", "a/vx-ref.json", "a/b/vx-ref.jsonx", "vite.config.ts", "p/vitest.config.cjs", "p/vitest.config.tsx",
		"p/vitest.config.", "eslint.config.", "eslint.config.js", "x/eslint.config.jsx", "q/u.spec.ts", "a{b", "x}y",
		"a.json", "p/b.json", "c.json", "h3.json", "p/a1.json", "p/i1.json", "a4.json", "src/x/y.go", "lib/x.json", "p/lib/x.json", "p/a.txt", "c.txt", "*.md", "r/x.md",
		".eslintrc", "p/.eslintrc.json", "p/x.eslintrc", ".eslintr", "xay.json", "p/prea", "prec", "q/llllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll.json", "lllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllllll.json",
	}
	for _, g := range globs {
		m := compile([]string{g})
		for _, f := range files {
			want, _ := doublestar.Match(g, f)
			if got := m.match(f); got != want {
				t.Errorf("glob %q, file %q: matched %v, doublestar %v", g, f, got, want)
			}
		}
	}
}

// TestBraceExpansionIsBounded: a glob whose alternatives multiply past
// maxExpanded is not expanded (doublestar matches it), and still matches.
func TestBraceExpansionIsBounded(t *testing.T) {
	g := "{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}{a,b,c,d,e,f,g,h}x"
	if _, ok := expandBraces(g); ok {
		t.Fatal("512 alternatives were expanded")
	}
	m := compile([]string{"**/" + g})
	if !m.match("p/abcx") || m.match("p/abx") {
		t.Fatal("the unexpanded glob matches wrongly")
	}
}
