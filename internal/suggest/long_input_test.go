package suggest

import (
	"fmt"
	"strings"
	"testing"
)

// names is a workspace's worth of project names.
func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("@scope/project-number-%d", i)
	}
	return out
}

// TestCloseSkipsNamesTooFarByLength: a name whose length differs from
// the typed one by more than a close name may is not compared letter by
// letter (the length difference is already more edits than allowed), so a
// pasted 100 KB --filter against 2,000 projects is refused at once; it
// took 12 s, each name costing a 100 KB × 25 table. Counted by the
// tables' allocations, two for each name compared.
func TestCloseSkipsNamesTooFarByLength(t *testing.T) {
	ns := names(2000)
	huge := strings.Repeat("q", 100_000)
	if allocs := testing.AllocsPerRun(1, func() { Close(huge, ns) }); allocs > 100 {
		t.Errorf("Close of a 100 KB name against 2,000 names: %.0f allocations, want the names skipped", allocs)
	}
}

// TestCloseHints: the hints themselves.
func TestCloseHints(t *testing.T) {
	for _, c := range []struct {
		s     string
		names []string
		want  string
	}{
		{"dcos", []string{"docs", "web", "admin"}, " (did you mean docs?)"},
		{"web", []string{"@acme/web", "webapp", "api"}, " (did you mean webapp, @acme/web?)"},
		{"zzzzzzzz", []string{"docs", "web"}, " (known: docs, web)"},
		{strings.Repeat("q", 100_000), []string{"docs", "web"}, " (known: docs, web)"},
		{"@scope/project-number-1x", names(20), " (did you mean @scope/project-number-1, @scope/project-number-10, @scope/project-number-11?)"},
	} {
		if got := Close(c.s, c.names); got != c.want {
			t.Errorf("Close(%.20q) = %q, want %q", c.s, got, c.want)
		}
	}
}

func BenchmarkCloseLongInput(b *testing.B) {
	ns := names(2000)
	huge := strings.Repeat("q", 100_000)
	for b.Loop() {
		Close(huge, ns)
	}
}
