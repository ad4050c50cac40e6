package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// A file about to be created beneath a symlink-free directory resolves in
// one walk to itself; through a symlink, or under a missing directory, it
// does not, and resolve takes the longer way (and still finds where the
// file would be).
func TestWalkFromMissingLeaf(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mkdirs(t, filepath.Join(base, "dist"))
	if err := os.Symlink(filepath.Dir(base), filepath.Join(base, "up")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rel     string
		missing bool
	}{{"dist/new.js", true}, {"dist", false}, {"up/new.js", false}, {"gone/new.js", false}} {
		p := filepath.Join(base, c.rel)
		got, missing, _ := walkFrom(base, p, 0)
		if missing != c.missing || (missing && got != p) {
			t.Errorf("walkFrom(%q) = %q, missingLeaf %v; want missingLeaf %v", c.rel, got, missing, c.missing)
		}
	}
	a, ok := absolute(os.Getpid(), -100, filepath.Join(base, "up", "new.js"))
	if got := a.resolve(true); !ok || got != filepath.Join(filepath.Dir(base), "new.js") {
		t.Errorf("resolve through a symlink = %q, %v", got, ok)
	}
}
