package plugins

import (
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// doublestarMatch is Match as doublestar answers it, glob by glob.
func doublestarMatch(globs, files []string) []string {
	var out []string
	for _, f := range files {
		if strings.HasPrefix(f, ".vx/") || strings.HasPrefix(f, ".git/") || strings.Contains("/"+f, "/node_modules/") {
			continue
		}
		for _, g := range globs {
			rest, ok := strings.CutPrefix(g, "**/")
			var m bool
			if ok && !strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
				m, _ = doublestar.Match(rest, path.Base(f))
			} else {
				m, _ = doublestar.Match(g, f)
			}
			if m {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// TestMatchTrickyBracesAgree: the base-name map and brace expansion
// pick the files doublestar does, for tricky brace patterns too.
func TestMatchTrickyBracesAgree(t *testing.T) {
	files := []string{"a.json", "b.json", ".json", "x/a.json", "x/ab.json", "x/a,b.json", "x/{a,b}.json", "x/{}.json",
		"x/a}.json", "x/{a.json", "x/a.js", "x/a.", "x/a", "x/.a", "x/ac", "x/abc", "x/a.b.json", "x/a.b", "x/y/b.js",
		"node_modules/a.json", "x/node_modules/a.json", ".vx/a.json", ".git/a.json", "x/,", "x/}", "x/{", "x/{}", "x/a{b", "x/a,bc", "x/bc", "x/b", "x/ab"}
	globs := []string{"**/{a,b}.json", "**/{}.json", "**/{,a}.json", "**/{a,}.json", "**/a{,b}", "**/a{b,c}", "**/{a,b",
		"**/a}.json", "**/{a,b}}.json", "**/a.{js,}", "**/{a.b,c}", "**/{a,b}.{js,json}", "**/a,b.json", "**/{a}.json",
		"**/{{a,b}}.json", "**/{a,{b,c}}.json", "**/{", "**/}", "**/{}", "**/,", "**/{,}", "**/a{b", "**/a.json",
		"**/.json", "**/{.a,a.}", "**/", "**/a,b{c,d}", "**/{a,b}{,c}", "**/a{b,c}{}", "**/{a,b}/c", "x/{a,b}.json", "**/x/{a,b}.json", "**/**/{a,b}.json"}
	for _, g := range globs {
		want := doublestarMatch([]string{g}, files)
		if got := Match([]string{g}, files); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: Match = %q, doublestar %q", g, got, want)
		}
	}
}
