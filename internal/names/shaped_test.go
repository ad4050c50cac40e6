package names

import (
	"strings"
	"testing"
)

// TestShaped: the first byte, every other byte and the length are each
// held to their rule.
func TestShaped(t *testing.T) {
	lower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	for s, want := range map[string]bool{
		"":                     false,
		"a":                    true,
		"a9":                   true,
		"9a":                   false,
		"a-b":                  false,
		strings.Repeat("a", 5): true,
		strings.Repeat("a", 6): false,
	} {
		if got := Shaped(s, 5, lower, func(c byte) bool { return lower(c) || c >= '0' && c <= '9' }); got != want {
			t.Errorf("Shaped(%q) = %v, want %v", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		want := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if Alnum(byte(c)) != want {
			t.Errorf("Alnum(%q) = %v", byte(c), !want)
		}
	}
}
