//go:build !windows

package platform_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// A hostile ingest client sends failures past the wire's bounds: each push
// is refused (400) naming the bound, and nothing of it is stored. A
// failure at the bounds, its text full of NULs, is stored and get_run
// answers it whole; another org's token does not see it.
func TestFailureBoundsAreEnforced(t *testing.T) {
	ts := seed(t)
	base := ts.p.srv.URL
	one := 1
	doc := func(id string, tasks int, f func(i int) *wire.PushFailure) *wire.PushRun {
		r := &wire.PushRun{Workspace: "web", RunID: id, Command: "vx run test", StartedAt: T0.Add(5 * time.Hour), Status: "failed", ExitCode: &one,
			Totals: wire.RunTotals{Tasks: tasks, Failed: tasks}}
		for i := range tasks {
			x := task("p"+strings.Repeat("x", i)+"#test", "failed", "miss", "", k1, 10, &one)
			x.Failure = f(i)
			r.Tasks = append(r.Tasks, x)
		}
		return r
	}
	loc := func(file string) wire.FailureLocation {
		return wire.FailureLocation{File: file, Line: 3, Col: 7, Message: "bad", Tool: "tsc"}
	}
	locs := func(n int) []wire.FailureLocation {
		out := make([]wire.FailureLocation, n)
		for i := range out {
			out[i] = loc("src/a.ts")
		}
		return out
	}
	bad := map[string]*wire.PushRun{
		"excerpt of": doc("c0c0c0c0c001", 1, func(int) *wire.PushFailure {
			return &wire.PushFailure{Excerpt: strings.Repeat("e", wire.MaxFailureExcerpt+1)}
		}),
		"locations; at most":    doc("c0c0c0c0c002", 1, func(int) *wire.PushFailure { return &wire.PushFailure{Locations: locs(wire.MaxFailureLocations + 1)} }),
		"tasks carry a failure": doc("c0c0c0c0c003", wire.MaxPushFailures+1, func(int) *wire.PushFailure { return &wire.PushFailure{Excerpt: "x"} }),
		"want a file": doc("c0c0c0c0c004", 1, func(int) *wire.PushFailure {
			return &wire.PushFailure{Locations: []wire.FailureLocation{loc(strings.Repeat("f", wire.MaxFailureText+1))}}
		}),
		"line and column >= 0": doc("c0c0c0c0c005", 1, func(int) *wire.PushFailure {
			return &wire.PushFailure{Locations: []wire.FailureLocation{{File: "a", Line: -1}}}
		}),
		"text within 1024 bytes": doc("c0c0c0c0c006", 1, func(int) *wire.PushFailure {
			return &wire.PushFailure{Locations: []wire.FailureLocation{{File: "a", Tool: strings.Repeat("t", 17)}}}
		}),
	}
	for want, r := range bad {
		res := push(t, base, ts.acmeIngest, r)
		if msg, _ := res.json(t)["error"].(string); res.status != http.StatusBadRequest || !strings.Contains(msg, want) {
			t.Errorf("push %s: %d %s; want 400 naming %q", r.RunID, res.status, res.body, want)
		}
		if got := call(t, base, ts.acme, "get_run", map[string]any{"runId": r.RunID, "workspace": "web"}).Struct; got["found"] != false {
			t.Errorf("refused run %s was stored: %v", r.RunID, got)
		}
	}
	full := doc("c0c0c0c0c0ff", wire.MaxPushFailures, func(int) *wire.PushFailure {
		return &wire.PushFailure{Excerpt: strings.Repeat("\x00", wire.MaxFailureExcerpt), Truncated: true, Locations: locs(wire.MaxFailureLocations)}
	})
	if res := push(t, base, ts.acmeIngest, full); res.status != http.StatusCreated {
		t.Fatalf("a run at the bounds: %d %s", res.status, res.body)
	}
	got := call(t, base, ts.acme, "get_run", map[string]any{"runId": full.RunID, "workspace": "web"}).Struct
	f := get(t, got, "tasks", 0, "failure").(map[string]any)
	if ex, _ := f["excerpt"].(string); ex != strings.Repeat("\uFFFD", wire.MaxFailureExcerpt) || len(f["locations"].([]any)) != wire.MaxFailureLocations {
		t.Fatalf("stored failure: excerpt of %d bytes, %d locations", len(ex), len(f["locations"].([]any)))
	}
	if other := call(t, base, ts.beta, "get_run", map[string]any{"runId": full.RunID}).Struct; other["found"] == true {
		t.Fatalf("another org's token reads the run: %v", other)
	}
}
