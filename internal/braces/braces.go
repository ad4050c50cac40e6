// Package braces expands a glob's brace groups into the globs they stand
// for, as doublestar reads them: "{a,b}/x" is "a/x" and "b/x", nested
// groups included.
package braces

import (
	"slices"
	"strings"
)

// MaxLen bounds the length of a glob Expand expands: each level of
// braces is a pass over the glob.
const MaxLen = 1024

// Expand lists the globs g's brace alternatives stand for, in their
// order (a repeat next to itself once); g itself when it has no brace.
// False for a glob with an escape or a class (whose "," or "{" may be
// literal), an unbalanced brace, more than max globs, or past MaxLen.
func Expand(g string, max int) ([]string, bool) {
	if len(g) > MaxLen || strings.ContainsAny(g, "\\[") {
		return nil, false
	}
	var out []string
	var expand func(s string) bool
	expand = func(s string) bool {
		open, end, alts := outerBrace(s)
		switch {
		case open < 0 && strings.ContainsAny(s, "{}"), open >= 0 && end < 0:
			return false
		case open < 0:
			out = append(out, s)
			return len(out) <= max
		}
		for _, alt := range alts {
			if !expand(s[:open] + alt + s[end+1:]) {
				return false
			}
		}
		return true
	}
	if !expand(g) {
		return nil, false
	}
	return slices.Compact(out), true
}

// outerBrace finds the first brace of s at the outer level: where it
// opens and closes (-1 when it does not) and its alternatives, split at
// its own commas.
func outerBrace(s string) (open, end int, alts []string) {
	open = strings.IndexByte(s, '{')
	if open < 0 {
		return -1, -1, nil
	}
	depth, from := 0, open+1
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return open, i, append(alts, s[from:i])
			}
		case ',':
			if depth == 1 {
				alts, from = append(alts, s[from:i]), i+1
			}
		}
	}
	return open, -1, nil
}
