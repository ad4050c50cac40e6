package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// TestParentInputsInBracesRekey: a configured input whose brace
// alternatives climb out of the project ("{../../base.json,src/**}", as
// one glob lists turbo's inputs) keys on each alternative: the workspace
// file and the project's own sources. The ".." rewrite used to cut
// through the braces and leave a glob matching nothing, so an edit to
// either was a cache hit replaying the old result.
func TestParentInputsInBracesRekey(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":  `{"projects": ["p/*"], "tasks": {"conf": {"command": "true", "inputs": ["{../../base.json,src/**}", "!{src/skip.ts,../../skip.json}"]}}}`,
		"p/app/package.json": `{"name": "app"}`,
		"p/app/src/a.ts":     "a",
		"p/app/src/skip.ts":  "a",
		"p/app/README.md":    "a",
		"base.json":          `{}`,
		"skip.json":          `{}`,
	})
	key := func() string {
		t.Helper()
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		p, err := runner.Prepare(context.Background(), &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"conf"}}, Environ: []string{"PATH=" + os.Getenv("PATH")}})
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		return p.Keys["app#conf"]
	}
	for _, c := range []struct {
		file  string
		moved bool
	}{
		{"base.json", true},
		{"p/app/src/a.ts", true},
		{"p/app/src/skip.ts", false},
		{"skip.json", false},
		{"p/app/README.md", false},
	} {
		before := key()
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(c.file)), []byte("edited"), 0o644); err != nil {
			t.Fatal(err)
		}
		if moved := key() != before; moved != c.moved {
			t.Errorf("editing %s: app#conf key moved %v, want %v", c.file, moved, c.moved)
		}
	}
}
