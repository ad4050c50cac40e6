package workspace

import (
	"math/rand/v2"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestGlobFuzz(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alpha := []string{"a", "b", "/", ".", "é", "!", "", " "}
	gen := func(n int) string {
		s := ""
		for i := 0; i < n; i++ {
			s += alpha[r.IntN(len(alpha))]
		}
		return s
	}
	seen := map[[2]string]bool{}
	for i := 0; i < 300000; i++ {
		g := gen(r.IntN(5))
		if r.IntN(2) == 0 {
			g += "/**"
		}
		f := gen(r.IntN(7))
		want, _ := doublestar.Match(g, f)
		if got := MatchGlob(g, f); got != want && !seen[[2]string{g, f}] {
			seen[[2]string{g, f}] = true
			if len(seen) < 40 {
				t.Errorf("MatchGlob(%q, %q) = %v, doublestar %v", g, f, got, want)
			}
		}
	}
}
