package wire

import (
	"regexp"
	"strings"
	"testing"
)

// ValidSlug answers as the regular expression it replaced.
func TestValidSlugIsTheExpression(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	cases := []string{"", "a", "0", "acme", "acme-web", "a.b_c-d", "-a", ".a", "_a", "A", "acmE", "a b", "a/b", "é", "a\n",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "a" + strings.Repeat("-", 62), "ws_0123456789ab", "a\x00"}
	for _, s := range cases {
		if got, want := ValidSlug(s), re.MatchString(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, the expression says %v", s, got, want)
		}
	}
}
