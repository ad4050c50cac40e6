package plugins

import (
	"regexp"
	"strings"
	"testing"
)

// The names a describe answer may give, checked by hand, are exactly the
// ones the rules' regular expressions take (the expressions the hand
// checks replace at start).
func TestNamesAreTheRulesRegularExpressions(t *testing.T) {
	plugin := regexp.MustCompile(`^[A-Za-z0-9@][A-Za-z0-9@/._-]{0,99}$`)
	command := regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)
	names := []string{"", "a", "A", "0", "@", "/", ".", "_", "-", "vitest", "@vzn/vx-plugin-eslint", "a b", "a\n", "é", "a\x00",
		"tasks-of", "Tasks", "9lives", "a_b", "a.b", "-a", "a-", strings.Repeat("a", 40), strings.Repeat("a", 41),
		strings.Repeat("a", 100), strings.Repeat("a", 101), "@" + strings.Repeat("b", 99), "a/../b", "a\tb"}
	for c := 0; c < 256; c++ {
		names = append(names, string(rune(c)), "a"+string(rune(c)), "a"+string([]byte{byte(c)}))
	}
	for _, n := range names {
		if got, want := isPluginName(n), plugin.MatchString(n); got != want {
			t.Errorf("isPluginName(%q) = %v, the rule says %v", n, got, want)
		}
		if got, want := isCommandName(n), command.MatchString(n); got != want {
			t.Errorf("isCommandName(%q) = %v, the rule says %v", n, got, want)
		}
	}
}
