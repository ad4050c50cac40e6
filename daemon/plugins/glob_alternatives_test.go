package plugins

import (
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/plugin"
)

// TestAGlobOfTooManyBraceAlternativesIsRefused: a scope glob or a glob a
// plugin declares whose brace groups multiply past maxGlobAlternatives
// (doublestar tries each alternative with the rest of the glob, for
// every file: thirty {a,b} groups took longer than the test waited on
// one path) is refused, saying so; one of many groups of few
// alternatives, as real globs are, is not.
func TestAGlobOfTooManyBraceAlternativesIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, glob string
		refused    bool
	}{
		{"a real glob", "{apps,libs}/**/{vite,vitest}.config.{js,mjs,cjs,ts,mts,cts}", false},
		{"at the bound", strings.Repeat("{a,b}", 10) + "/**", false},
		{"nested groups within the bound", "{" + strings.Repeat("{a,b}", 8) + ",c}{d,e}/**", false}, // (2^8+1)*2
		{"past the bound", strings.Repeat("{a,b}", 11) + "/**", true},
		{"nested past the bound", "{" + strings.Repeat("{a,b}", 9) + ",c}{d,e}/**", true}, // (2^9+1)*2
		{"thirty groups", strings.Repeat("{a,a}", 30) + "b", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scopeErr := CheckScopeGlob(tc.glob)
			describeErr := checkDescribe(&plugin.Describe{Name: "p", Version: "1.0.0", Stages: []string{plugin.OffersTasks}, Globs: []string{tc.glob}}, func(s string) string { return s })
			for _, err := range []error{scopeErr, describeErr} {
				switch {
				case tc.refused && (err == nil || !strings.Contains(err.Error(), "brace alternatives")):
					t.Errorf("got %v, want a refusal for its brace alternatives", err)
				case !tc.refused && err != nil:
					t.Errorf("refused: %v", err)
				}
			}
		})
	}
}
