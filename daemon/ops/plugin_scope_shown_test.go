package ops_test

import (
	"context"
	"slices"
	"testing"

	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
)

// TestPluginScopeShownAndLocked: getWorkspaceInfo shows a plugin's
// include and exclude; vx lock --check reports a scope that drops a
// project's inferred task as that task's removal, and the plugin itself
// (its identity and version) as unchanged.
func TestPluginScopeShownAndLocked(t *testing.T) {
	ctx := context.Background()
	root := pluginWorkspace(t)
	testtree.Write(t, root, map[string]string{
		"packages/b/package.json": `{"name":"b"}`,
		"packages/b/vx-ref.json":  `{"command":"echo b"}`,
	})
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := lockfile.Write(m, secret.NewMasker()); err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"projects":["packages/*"],"plugins":[{"plugin":"./tools/ref.mjs","include":["packages/**"],"exclude":["packages/b/**"]}]}`,
	})
	e := pluginEnv(t, root)
	info, err := ops.Info(ctx, e, ops.InfoInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Plugins) != 1 || !slices.Equal(info.Plugins[0].Include, []string{"packages/**"}) || !slices.Equal(info.Plugins[0].Exclude, []string{"packages/b/**"}) || info.Plugins[0].Tasks != 1 {
		t.Fatalf("info plugins: %+v", info.Plugins)
	}
	m, _ = e.CurrentModel()
	chk, err := lockfile.Check(m, secret.NewMasker())
	if err != nil {
		t.Fatal(err)
	}
	if chk.UpToDate || len(chk.Problems) != 1 || chk.Problems[0].TaskID != "b#ref" || chk.Problems[0].Field != "task" || chk.Problems[0].Plugin != "" {
		t.Fatalf("lock check after the scope left b out: %+v", chk.Problems)
	}
}
