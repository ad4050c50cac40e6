// Package names checks the shape of a name by its bytes: a first byte of
// one kind, the rest of another, a bounded length. Plugin, verb and
// option names are each such a rule, checked without a regular
// expression (one of {0,99} repeats cost every vx process a million
// instructions to compile at start).
package names

// Shaped says whether s is 1 to max bytes long, its first byte one
// first takes and every other byte one rest takes.
func Shaped(s string, max int, first, rest func(byte) bool) bool {
	if s == "" || len(s) > max || !first(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !rest(s[i]) {
			return false
		}
	}
	return true
}

// Alnum says whether c is an ASCII letter or digit.
func Alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
