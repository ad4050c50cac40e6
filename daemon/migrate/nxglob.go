package migrate

import "strings"

// extglob rewrites the extended-glob groups Nx globs may use (as in
// "?(*.)+(spec|test).[jt]s?(x)") into the brace alternatives vx globs
// take: ?(a|b) and *(a|b) become {a,b,} (at most one repetition), @(a|b)
// and +(a|b) become {a,b} (exactly one). ok is false for a negated group
// !(…), which braces cannot say, or an unbalanced one.
func extglob(g string) (string, bool) {
	var out strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		if !strings.ContainsRune("?*@+!", rune(c)) || i+1 >= len(g) || g[i+1] != '(' {
			out.WriteByte(c)
			continue
		}
		if c == '!' {
			return g, false
		}
		end := matchingParen(g, i+1)
		if end < 0 {
			return g, false
		}
		inner, ok := extglob(g[i+2 : end])
		if !ok {
			return g, false
		}
		out.WriteString("{" + strings.ReplaceAll(inner, "|", ","))
		if c == '?' || c == '*' {
			out.WriteString(",")
		}
		out.WriteString("}")
		i = end
	}
	return out.String(), true
}

// matchingParen is the index of the ")" closing the "(" at open, or -1.
func matchingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
