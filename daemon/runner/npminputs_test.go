package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

const npmLockfile = `{"lockfileVersion": 3, "packages": {
  "": {"name": "root"},
  "node_modules/a": {"version": "1.0.0", "integrity": "sha512-A", "dependencies": {"b": "^1"}},
  "node_modules/b": {"version": "1.0.0", "integrity": "sha512-B"},
  "node_modules/a/node_modules/b": {"version": "2.0.0", "integrity": "sha512-B2", "dependencies": {"d": "*"}},
  "node_modules/d": {"version": "1.0.0", "integrity": "sha512-D"},
  "node_modules/c": {"version": "1.0.0", "integrity": "sha512-C"}
}}`

// TestNpmInputsFollowLockedPackages: an "npm:a" input moves a task's key
// when the lockfile pins another a, or another version of a package a
// depends on (as Node resolves it, nested first), and not for others.
func TestNpmInputsFollowLockedPackages(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":  `{"projects": ["p/*"], "tasks": {"test": {"command": "true", "inputs": ["**", "npm:a"]}}}`,
		"p/app/package.json": `{"name": "app"}`,
		"package-lock.json":  npmLockfile,
	})
	key := func() string {
		t.Helper()
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		p, err := runner.Prepare(context.Background(), &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"test"}}, Environ: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			t.Fatalf("Prepare: %v", err)
		}
		return p.Keys["app#test"]
	}
	lock := npmLockfile
	for _, c := range []struct {
		name, old, new string
		moves          bool
	}{
		{"the package itself", "sha512-A", "sha512-A1", true},
		{"its nested dependency", "sha512-B2", "sha512-B3", true},
		{"a dependency of that one", "sha512-D", "sha512-D1", true},
		{"the hoisted copy it does not resolve to", `"sha512-B"`, `"sha512-B9"`, false},
		{"an unrelated package", "sha512-C", "sha512-C1", false},
	} {
		before := key()
		lock = strings.Replace(lock, c.old, c.new, 1)
		if err := os.WriteFile(filepath.Join(root, "package-lock.json"), []byte(lock), 0o644); err != nil {
			t.Fatal(err)
		}
		if moved := key() != before; moved != c.moves {
			t.Errorf("%s: the key moved %v, want %v", c.name, moved, c.moves)
		}
	}
}
