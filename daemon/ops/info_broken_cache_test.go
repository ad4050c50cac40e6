package ops_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
)

// TestInfoSaysACacheThatCannotOpen: with .vx/cache a file, vx info's
// cache names the error rather than answering a blank directory.
func TestInfoSaysACacheThatCannotOpen(t *testing.T) {
	root := t.TempDir()
	testtree.Write(t, root, map[string]string{"vx.workspace.json": config, "apps/web/package.json": `{"name": "web"}`})
	if err := os.MkdirAll(filepath.Join(root, ".vx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".vx", "cache"), []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	e := ops.NewEnv(root, m, nil, []string{"PATH=" + os.Getenv("PATH")})
	t.Cleanup(e.Close)
	out, err := ops.Info(context.Background(), e, ops.InfoInput{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Cache.Error == "" {
		t.Fatalf("info's cache: %+v, want the error said", out.Cache)
	}
}
