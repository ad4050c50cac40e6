// Package suggest finds the names closest to a misspelt one, for a
// refusal to end with "did you mean …?".
package suggest

import (
	"fmt"
	"sort"
	"strings"
)

// Close suggests the names closest to s, as a parenthesised hint to end
// a refusal with: " (did you mean a, b?)", or the known names when few
// and none is close, or "".
func Close(s string, names []string) string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	ls, limit := strings.ToLower(s), max(2, len(s)/3)
	for _, n := range names {
		ln := strings.ToLower(n)
		holds := strings.Contains(n, s) || strings.Contains(s, n)
		// The lengths' difference is the fewest edits between the two
		// (and all of them when one holds the other): past the limit,
		// no table of a pasted 100 KB name by each name is worth making.
		d := max(len(ls)-len(ln), len(ln)-len(ls))
		if d <= limit {
			d = levenshtein(ls, ln)
		} else if !holds {
			continue
		}
		if d <= limit || holds {
			cs = append(cs, cand{n, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	if len(cs) > 3 {
		cs = cs[:3]
	}
	if len(cs) == 0 {
		if len(names) > 0 && len(names) <= 12 {
			return fmt.Sprintf(" (known: %s)", strings.Join(names, ", "))
		}
		return ""
	}
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return fmt.Sprintf(" (did you mean %s?)", strings.Join(out, ", "))
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
