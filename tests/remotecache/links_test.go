package remotecache_test

import (
	"os"
	"path/filepath"
	"strings"
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

// A server answering another artifact (with that artifact's own valid tag)
// for a hash: the tag covers the artifact id, so with signatures on every
// swapped answer is refused; with signatures off the entry header's key
// refuses it. Nothing is restored from a swapped artifact either way.
func TestSwappedArtifactsRefused(t *testing.T) {
	for _, signed := range []bool{true, false} {
		extra := []string{}
		if signed {
			extra = append(extra, "TURBO_REMOTE_CACHE_SIGNATURE_KEY=server-stores-tags")
		}
		srv := startServer(t, extra...)
		setup := func(ws string) string {
			if signed {
				cfg := filepath.Join(ws, "vx.workspace.json")
				b, _ := os.ReadFile(cfg)
				os.WriteFile(cfg, []byte(strings.Replace(string(b), `"passEnv"`, `"remoteCache": {"signature": true}, "passEnv"`, 1)), 0o644)
			}
			return ws
		}
		e := env(srv, "VX_REMOTE_CACHE_SIGNATURE_KEY=sig-key-77aa")
		if s, res := runJSON(t, setup(clone(t)), e, "build"); !s.OK || s.Remote.Uploads != 3 {
			t.Fatalf("run in A: %s", res)
		}
		arts := srv.artifacts(t)
		if len(arts) != 3 {
			t.Fatalf("server holds %v", arts)
		}
		// Rotate the three artifacts (and their tags) among their hashes.
		var bodies, tags [][]byte
		for _, p := range arts {
			b, _ := os.ReadFile(p)
			tg, _ := os.ReadFile(p + ".tag")
			bodies, tags = append(bodies, b), append(tags, tg)
		}
		for i, p := range arts {
			os.WriteFile(p, bodies[(i+1)%3], 0o644)
			if signed {
				os.WriteFile(p+".tag", tags[(i+1)%3], 0o644)
			}
		}
		s, res := runJSON(t, setup(clone(t)), e, "build")
		if !s.OK || !all(s, "miss") || s.Remote.Rejected != 3 {
			t.Fatalf("signed=%v: swapped artifacts were not all refused: %v %+v\n%s", signed, sources(s), s.Remote, res)
		}
	}
}
