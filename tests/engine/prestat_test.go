//go:build !windows

package engine_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The early stat (daemon/hashing/prestat.go) answers a no-op run's inputs
// from the stat cache when their stat is as recorded. Every input here is
// old enough to be in the cache, so each run after the first marks them;
// an input edited in place with its mtime put back, one added and one
// removed must each still re-run their task, and only theirs.
func TestEarlyStatSeesEveryChange(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	old := time.Now().Add(-time.Hour)
	backdate := func(p string) {
		t.Helper()
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			backdate(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"core#build", "util#build", "web#build", "api#build", "docs#build"}
	expect := func(step string, missed ...string) *summary {
		t.Helper()
		s, _ := runJSON(t, ws, nil, 0, "build")
		miss := map[string]bool{}
		for _, id := range missed {
			miss[id] = true
		}
		for _, id := range all {
			want := "hit"
			if miss[id] {
				want = "miss"
			}
			if got := s.row(t, id).Cache; got != want {
				t.Errorf("%s: %s cache %s, want %s", step, id, got, want)
			}
		}
		return s
	}
	runJSON(t, ws, nil, 0, "build")
	before := expect("unchanged tree").row(t, "core#build").Key

	docs := filepath.Join(ws, "apps", "docs", "src", "docs.js")
	body := []byte(readFile(t, docs))
	body[0] ^= 0x20 // the same size, another first letter's case
	if err := os.WriteFile(docs, body, 0o644); err != nil {
		t.Fatal(err)
	}
	backdate(docs)
	expect("docs.js edited in place, mtime put back", "docs#build")
	expect("after the edit's run")

	extra := filepath.Join(ws, "packages", "core", "src", "extra.js")
	if err := os.WriteFile(extra, []byte("// extra\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	backdate(extra)
	added := expect("core/src/extra.js added", "core#build", "util#build", "web#build", "api#build").row(t, "core#build").Key
	expect("after the addition's run")

	// Removed, the tree is as at first: the keys are the first ones
	// again (hits of that run's cache entries, restored).
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if got := expect("core/src/extra.js removed").row(t, "core#build").Key; got != before || got == added {
		t.Errorf("core#build's key after the removal %s, want the first run's %s (with extra.js: %s)", got, before, added)
	}
	if out := readFile(t, filepath.Join(ws, "packages", "core", "dist", "index.js")); strings.Contains(out, "extra") {
		t.Errorf("core's output after the removal still holds extra.js: %q", out)
	}
}
