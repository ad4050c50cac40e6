package braces

import (
	"reflect"
	"strings"
	"testing"
)

// TestExpand: nested groups and groups in a row expand in order; a glob
// whose braces may be literal (an escape, a class) or are unbalanced, or
// that stands for more globs than asked, is not expanded.
func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		g    string
		max  int
		want []string
	}{
		{"src/**", 8, []string{"src/**"}},
		{"{../x,src}/**", 8, []string{"../x/**", "src/**"}},
		{"{a,{b,c}}.json", 8, []string{"a.json", "b.json", "c.json"}},
		{"{vite,vitest}.config.{ts,js}", 8, []string{"vite.config.ts", "vite.config.js", "vitest.config.ts", "vitest.config.js"}},
		{"x{,.json}", 8, []string{"x", "x.json"}},
		{"{a,a}", 8, []string{"a"}},
		{"{a,b}{c,d}", 3, nil},
		{"a{b", 8, nil},
		{"x}y", 8, nil},
		{"\\{a,b}", 8, nil},
		{"[{]a,b}", 8, nil},
		{"{" + strings.Repeat("a,", MaxLen) + "b}", 1 << 20, nil},
	} {
		got, ok := Expand(tc.g, tc.max)
		if ok != (tc.want != nil) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Expand(%q, %d) = %q, %v; want %q", tc.g, tc.max, got, ok, tc.want)
		}
	}
}
