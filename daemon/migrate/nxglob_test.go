package migrate

import (
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// TestExtglobMatchesAsNx: Nx's extended-glob exclusions, rewritten, pick
// the files Nx's picked.
func TestExtglobMatchesAsNx(t *testing.T) {
	g, ok := extglob("**/?(*.)+(spec|test).[jt]s?(x)?(.snap)")
	if !ok {
		t.Fatal("not rewritten")
	}
	for f, want := range map[string]bool{
		"src/app.spec.ts": true, "src/app.test.tsx": true, "src/app.spec.ts.snap": true, "spec.js": true,
		"src/app.ts": false, "src/spec/helper.ts": false, "src/app.specs.ts": false,
	} {
		if got := workspace.MatchGlob(g, f); got != want {
			t.Errorf("%s (from the Nx glob) matches %s: %v, want %v", g, f, got, want)
		}
	}
	if _, ok := extglob("src/!(vendor)/**"); ok {
		t.Error("a negated group was rewritten")
	}
	if _, ok := extglob("src/+(a|b"); ok {
		t.Error("an unbalanced group was rewritten")
	}
}
