package wire

// maxSlug is the longest workspace slug the platform takes.
const maxSlug = 63

// ValidSlug reports whether s can name a workspace on the team platform:
// 1 to 63 of lowercase ASCII letters, digits, '.', '_' and '-', beginning
// with a letter or a digit. Both the platform and vx push check it; it is
// written out rather than a regular expression, which every vx process
// compiled at start (about 0.4–0.9 ms, 722 allocations, for the 63-fold
// repetition).
func ValidSlug(s string) bool {
	if len(s) == 0 || len(s) > maxSlug {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}
