package ops_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/wire"
)

// pluginWorkspace is a workspace whose only "ref" task the reference
// plugin infers from packages/a/vx-ref.json.
func pluginWorkspace(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH")
		}
		t.Skip("node is not on PATH: the plugin tests run the Node reference plugin")
	}
	ref, err := os.ReadFile(filepath.Join("..", "..", "examples", "plugins", "vx-plugin-reference.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json":       `{"projects":["packages/*"],"plugins":["./tools/ref.mjs"]}`,
		"tools/ref.mjs":           string(ref),
		"packages/a/package.json": `{"name":"a"}`,
		"packages/a/vx-ref.json":  `{"command":"mkdir -p out && echo made > out/x.txt","outputs":["out/**"]}`,
	})
	return root
}

func pluginEnv(t *testing.T, root string) *ops.Env {
	t.Helper()
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	e := ops.NewEnv(root, m, nil, []string{"PATH=" + os.Getenv("PATH")})
	t.Cleanup(e.Close)
	return e
}

// TestInferredTaskSeams: show marks the inferred task with its plugin and
// file, info lists the plugin, the task runs and caches, and the lock
// reports a changed plugin as drift.
func TestInferredTaskSeams(t *testing.T) {
	ctx := context.Background()
	root := pluginWorkspace(t)
	e := pluginEnv(t, root)
	show, err := ops.Show(ctx, e, ops.ShowInput{Target: "a#ref"})
	if err != nil {
		t.Fatal(err)
	}
	ti := show.Projects[0].Tasks[0]
	if ti.InferredFrom == nil || ti.InferredFrom.Plugin != "reference" || ti.InferredFrom.File != "packages/a/vx-ref.json" || ti.CommandSource != "plugin" {
		t.Fatalf("show a#ref: %+v", ti)
	}
	info, err := ops.Info(ctx, e, ops.InfoInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Plugins) != 1 || info.Plugins[0].Name != "reference" || info.Plugins[0].Version != "1.0.0" || info.Plugins[0].Tasks != 1 ||
		strings.Join(info.Plugins[0].Stages, ",") != "tasks,commands" || info.Plugins[0].Identity == "" || info.Plugins[0].Error != "" {
		t.Fatalf("info plugins: %+v", info.Plugins)
	}
	for i, want := range []int{0, 1} {
		m, _ := e.CurrentModel()
		o := &runner.Options{Model: m, Selection: wire.Selection{Tasks: []string{"ref"}}, Environ: []string{"PATH=" + os.Getenv("PATH")}}
		p, err := runner.Prepare(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := runner.Execute(ctx, p, o, runner.Output{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Totals.Cached != want || !res.OK {
			t.Fatalf("run %d: %+v, want %d cached", i, res.Totals, want)
		}
	}
	m, _ := e.CurrentModel()
	if _, _, err := lockfile.Write(m, secret.NewMasker()); err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, map[string]string{"tools/ref.mjs": mustRead(t, filepath.Join(root, "tools/ref.mjs")) + "\n// a new release\n"})
	m2, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	chk, err := lockfile.Check(m2, secret.NewMasker())
	if err != nil {
		t.Fatal(err)
	}
	if chk.UpToDate || len(chk.Problems) != 1 || chk.Problems[0].Plugin != "./tools/ref.mjs" || chk.Problems[0].Field != "identity" {
		t.Fatalf("lock check after the plugin changed: %+v", chk)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLockReportsPluginAddedAndRemoved: vx lock --check reports a plugin
// removed from, or added to, the declaration since the lock as drift.
func TestLockReportsPluginAddedAndRemoved(t *testing.T) {
	root := pluginWorkspace(t)
	load := func() *workspace.Model {
		t.Helper()
		m, err := workspace.Load(root)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	withPlugin := mustRead(t, filepath.Join(root, "vx.workspace.json"))
	if _, _, err := lockfile.Write(load(), secret.NewMasker()); err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, map[string]string{"vx.workspace.json": `{"projects":["packages/*"]}`})
	chk, err := lockfile.Check(load(), secret.NewMasker())
	if err != nil {
		t.Fatal(err)
	}
	if chk.UpToDate || !hasPluginDrift(chk.Problems, "./tools/ref.mjs", "reference 1.0.0", "(absent)") {
		t.Fatalf("lock check after the plugin was removed: %+v", chk)
	}
	if _, _, err := lockfile.Write(load(), secret.NewMasker()); err != nil {
		t.Fatal(err)
	}
	testtree.Write(t, root, map[string]string{"vx.workspace.json": withPlugin})
	if chk, err = lockfile.Check(load(), secret.NewMasker()); err != nil {
		t.Fatal(err)
	}
	if chk.UpToDate || !hasPluginDrift(chk.Problems, "./tools/ref.mjs", "(absent)", "reference 1.0.0") {
		t.Fatalf("lock check after the plugin was added: %+v", chk)
	}
}

func hasPluginDrift(ps []lockfile.Problem, plugin, locked, current string) bool {
	for _, p := range ps {
		if p.Plugin == plugin && p.Field == "plugin" && p.Locked == locked && p.Current == current {
			return true
		}
	}
	return false
}
