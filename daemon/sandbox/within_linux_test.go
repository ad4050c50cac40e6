package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// The lexical answer says "inside" only where resolving would: through a
// symlink below a root, or with "..", it leaves the question to resolve.
func TestWithinOnlyWhereResolveAgrees(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(base, "dist")
	for _, d := range []string{"dist/sub", "outside"} {
		mkdirs(t, filepath.Join(base, d))
	}
	if err := os.WriteFile(filepath.Join(dist, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"dist/out": "../outside", "dist/leaf": "../outside/x", "dist/in": "sub"} {
		if err := os.Symlink(to, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	p := &Policy{WriteDirs: []string{dist}, WriteFiles: []string{"/dev/null"}}
	for _, c := range []struct {
		raw    string
		follow bool
		want   bool
	}{
		{"dist", false, true},
		{"dist/f", true, true},
		{"dist/new", true, true},
		{"dist/sub/new", false, true},
		{"dist/gone/new", true, true},
		{"dist/f/x", true, true},
		{"dist/out/x", false, false},
		{"dist/leaf", true, false},
		{"dist/leaf", false, true}, // unlink or rename of the link itself
		{"dist/in/new", true, false},
		{"dist/../outside/x", true, false},
		{"outside/x", true, false},
		{"/dev/null", true, true},
	} {
		path := c.raw
		if !filepath.IsAbs(path) {
			path = filepath.Join(base, c.raw)
		}
		a, ok := absolute(os.Getpid(), -100, path)
		if !ok {
			t.Fatalf("absolute(%q) failed", c.raw)
		}
		if got := p.within(a, c.raw, c.follow); got != c.want {
			t.Errorf("within(%q, follow %v) = %v, want %v", c.raw, c.follow, got, c.want)
		}
		if got := p.within(a, c.raw, c.follow); got && !p.Allows(a.resolve(c.follow)) {
			t.Errorf("within(%q, follow %v) says inside, resolve says %s", c.raw, c.follow, a.resolve(c.follow))
		}
	}
}

// A write through a symlink inside the outputs that points outside them is
// a violation, named by where it lands.
func TestReportRecordsWriteThroughSymlinkInOutputs(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	os.MkdirAll(filepath.Join(proj, "dist"), 0o755)
	os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755)
	out, code, vs := confined(t, wire.SandboxReport, true, proj, `ln -s ../../elsewhere dist/up && echo x > dist/up/f && echo y > dist/ok`, "dist/**")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	want := filepath.Join(root, "elsewhere", "f")
	if len(vs) != 1 || vs[0].Path != want || vs[0].Op != opCreate || vs[0].Process != "sh" {
		t.Fatalf("violations = %+v, want one create of %s by sh", vs, want)
	}
}
