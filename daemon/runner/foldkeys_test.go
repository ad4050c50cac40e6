//go:build unix

package runner_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// The keys fold in graph order while the workers hash: every node's
// components hold its dependencies' final keys, runs agree, and a node
// whose inputs cannot be hashed fails Prepare (under -race: the fold and
// the workers share the slots).
func TestFoldKeys(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{"vx.workspace.json": `{"projects": ["p/*"], "tasks": {"build": {"dependsOn": ["^build", "gen"]}, "gen": {}, "all": {"dependsOn": ["build"]}}}`}
	const n = 60
	for i := 0; i < n; i++ {
		deps := ""
		if i > 0 {
			deps = fmt.Sprintf(`, "dependencies": {"p%02d": "*"}`, i-1)
			if i > 2 {
				deps = fmt.Sprintf(`, "dependencies": {"p%02d": "*", "p%02d": "*"}`, i-1, i/3)
			}
		}
		files[fmt.Sprintf("p/p%02d/package.json", i)] = fmt.Sprintf(`{"name": "p%02d"%s, "scripts": {"build": "true", "gen": "true", "all": "true"}}`, i, deps)
		files[fmt.Sprintf("p/p%02d/src/x.js", i)] = fmt.Sprint(i)
	}
	testtree.Write(t, root, files)
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	o := &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"all"}}, Concurrency: 4, Environ: []string{}}
	var first map[string]string
	for round := 0; round < 10; round++ {
		p, err := runner.Prepare(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, nd := range p.Graph.Nodes {
			if p.Keys[nd.ID] == "" {
				t.Fatalf("%s has no key", nd.ID)
			}
			for _, d := range nd.Deps {
				if got := p.Components[nd.ID].Deps[d.ID]; got != p.Keys[d.ID] || got == "" {
					t.Fatalf("%s holds %q for %s, whose key is %q", nd.ID, got, d.ID, p.Keys[d.ID])
				}
			}
		}
		if first == nil {
			first = p.Keys
		} else {
			for id, k := range p.Keys {
				if first[id] != k {
					t.Fatalf("round %d: %s's key %s, first round's %s", round, id, k, first[id])
				}
			}
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "p/p30/src/pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 10; round++ {
		_, err := runner.Prepare(ctx, o)
		if err == nil || !strings.Contains(err.Error(), "pipe") {
			t.Fatalf("round %d: Prepare with a fifo input: %v, want its error", round, err)
		}
	}
}
