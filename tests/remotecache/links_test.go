package remotecache_test

import (
	"os"
	"path/filepath"
	"testing"
)

// An artifact whose outputs hold a symlink leading outside the task's
// outputs is refused, never restored, even when every byte is intact:
// here A's lib#build (same key: the hook is passEnv, not an input) adds
// dist/hop -> .. and dist/via -> hop/../escape, which reads as inside the
// package but resolves to packages/escape. B gets a warning and runs lib.
func TestArtifactWithOutsideSymlinkRefused(t *testing.T) {
	srv := startServer(t)
	a, b := clone(t), clone(t)
	hook := "VX_TEST_HOOK=mkdir -p dist && ln -s .. dist/hop && ln -s hop/../escape dist/via"
	first, res := runJSON(t, a, env(srv, hook), "build")
	if !first.OK || first.Remote.Uploads != 3 {
		t.Fatalf("run in A: %+v\n%s", first.Remote, res)
	}
	if target, err := os.Readlink(filepath.Join(a, "packages/lib/dist/via")); err != nil || target != "hop/../escape" {
		t.Fatalf("A's lib did not make the link (%q, %v)", target, err)
	}
	s, res := runJSON(t, b, env(srv), "build")
	src := sources(s)
	if !s.OK || src["lib#build"] != "miss" || src["app#build"] != "remote" || s.Remote.Rejected != 1 {
		t.Fatalf("want lib refused and run, the others remote hits: %v %+v\n%s", src, s.Remote, res)
	}
	if len(warnings(s, "symlink leading outside")) != 1 {
		t.Fatalf("want one warning naming the symlink: %q", s.Warnings)
	}
	if _, err := os.Lstat(filepath.Join(b, "packages/lib/dist/via")); !os.IsNotExist(err) {
		t.Fatalf("B has the foreign link dist/via (%v)", err)
	}
}
