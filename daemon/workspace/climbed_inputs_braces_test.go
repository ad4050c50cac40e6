package workspace

import (
	"slices"
	"testing"
)

// TestClimbedInputsInBraces: brace alternatives that climb out of the
// project are each rewritten; a brace that holds no ".." leaves the glob
// whole; a glob too odd to expand (a class, an escape, an unclosed
// brace) is kept as written.
func TestClimbedInputsInBraces(t *testing.T) {
	for _, c := range []struct {
		in, want []string
	}{
		{[]string{"{../../base.json,src/**}"}, []string{"/base.json", "src/**"}},
		{[]string{"!{src/skip.ts,../../skip.json}"}, []string{"!src/skip.ts", "!/skip.json"}},
		{[]string{"../../src/**/*.{ts,tsx}"}, []string{"/src/**/*.{ts,tsx}"}},
		{[]string{"{../{a,b},c}.json"}, []string{"/p/a.json", "/p/b.json", "c.json"}},
		{[]string{"{../../[ab],src}"}, []string{"{../../[ab],src}"}},
		{[]string{"{../../x,src"}, []string{"{../../x,src"}},
		{[]string{"src/**", "{a,b}"}, []string{"src/**", "{a,b}"}},
	} {
		if got := climbedInputs("p/app", c.in); !slices.Equal(got, c.want) {
			t.Errorf("climbedInputs(p/app, %q) = %q, want %q", c.in, got, c.want)
		}
	}
}
