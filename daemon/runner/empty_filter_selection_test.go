package runner_test

import (
	"context"
	"os"
	"testing"

	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// TestFiltersSelectingNoProjectRunNothing: filters that are valid but
// together select no project (the dependents of a project nothing
// depends on, its dependencies when it has none, a project and "!" it)
// plan no task. The selection came back empty as "no selection", and
// vx run build ran every project's build while vx show listed none.
func TestFiltersSelectingNoProjectRunNothing(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":  `{"projects": ["p/*"], "tasks": {"build": {"command": "true"}}}`,
		"p/web/package.json": `{"name": "web", "dependencies": {"ui": "*"}}`,
		"p/ui/package.json":  `{"name": "ui"}`,
	})
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, filters := range [][]string{{"...^web"}, {"ui^..."}, {"web", "!web"}, {"!web..."}} {
		p, err := runner.Prepare(context.Background(), &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"build"}, Filters: filters}, Environ: []string{"PATH=" + os.Getenv("PATH")}})
		if err != nil {
			t.Errorf("--filter %q: %v", filters, err)
			continue
		}
		var ids []string
		for _, n := range p.Graph.Nodes {
			ids = append(ids, n.ID)
		}
		if len(ids) != 0 {
			t.Errorf("--filter %q plans %v, want no task", filters, ids)
		}
	}
}
