package remotecache_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/cache"
)

// An artifact naming a path that is not one of the task's outputs is
// refused whole, never restored, though every byte checks: here the
// server's copy of lib#build's entry is replaced by a well-formed entry of
// the same key that also carries src/main.txt (a source file) and
// .git/hooks/pre-commit. B warns and runs lib itself; its sources are
// untouched.
func TestArtifactOutsideOutputsRefused(t *testing.T) {
	srv := startServer(t)
	a, b := clone(t), clone(t)
	if s, res := runJSON(t, a, env(srv), "build"); !s.OK || s.Remote.Uploads != 3 {
		t.Fatalf("run in A: %s", res)
	}
	local, err := cache.Open(filepath.Join(a, ".vx", "cache"), &cache.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := local.Latest("lib#build")
	if err != nil {
		t.Fatal(err)
	}
	genuine, _ := os.ReadFile(e.Path)
	// The forged entry: lib's own outputs plus two paths outside them.
	tree := filepath.Join(t.TempDir(), "lib")
	for name, body := range map[string]string{"dist/out.txt": "forged dist", "src/main.txt": "forged source", ".git/hooks/pre-commit": "#!/bin/sh\necho owned\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(tree, name)), 0o755)
		os.WriteFile(filepath.Join(tree, name), []byte(body), 0o755)
	}
	forger, err := cache.Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fe, err := forger.Put(context.Background(), e.Meta, tree, []string{"dist/out.txt", "src/main.txt", ".git/hooks/pre-commit"}, []byte("building lib\n"))
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := os.ReadFile(fe.Path)
	replaced := 0
	for _, p := range srv.artifacts(t) {
		if b, _ := os.ReadFile(p); bytes.Equal(b, genuine) {
			os.WriteFile(p, forged, 0o644)
			replaced++
		}
	}
	if replaced != 1 {
		t.Fatalf("found lib's artifact %d times on the server", replaced)
	}
	s, res := runJSON(t, b, env(srv), "build")
	src := sources(s)
	if !s.OK || src["lib#build"] != "miss" || src["app#build"] != "remote" {
		t.Fatalf("want lib refused and run, the others remote hits: %v %+v\n%s", src, s.Remote, res)
	}
	if got, _ := os.ReadFile(filepath.Join(b, "packages/lib/src/main.txt")); strings.Contains(string(got), "forged") {
		t.Fatalf("the download overwrote a source file: %q", got)
	}
	if _, err := os.Stat(filepath.Join(b, "packages/lib/.git/hooks/pre-commit")); !os.IsNotExist(err) {
		t.Fatalf("the download wrote a git hook (%v)", err)
	}
	if len(warnings(s, "not one of the task's outputs")) != 1 {
		t.Fatalf("want one warning naming the path: %q", s.Warnings)
	}
}
