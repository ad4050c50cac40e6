package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/layout"
)

// loadListed loads root as a run does: the plugins take the run's listing
// and its stats (a hasher on the workspace's stat cache).
func loadListed(t *testing.T, root string) *workspace.Model {
	t.Helper()
	h := hashing.NewHasher(layout.StatCache(root))
	m, err := workspace.LoadReusingListed(root, workspace.Listed{
		Files: func() ([]string, bool) {
			files, _, err := hashing.ListFilesCached(context.Background(), root, layout.FileList(root))
			return files, err == nil
		},
		Stat: func(files []string) ([]hashing.Stat, []bool) { return h.StatListed(root, files) },
	})
	if err != nil {
		t.Fatalf("LoadReusingListed: %v", err)
	}
	return m
}

// TestListedLoadSeesSameSizeEdits: with the run's listing and stats, a
// warm load starts no plugin, and a matched file rewritten in place to the
// same size with its mtime put back (old or within the racy window) is
// asked about again.
func TestListedLoadSeesSameSizeEdits(t *testing.T) {
	needNode(t)
	for _, racy := range []bool{false, true} {
		root := pluginTree(t, map[string]string{"packages/a/vx-ref.json": `{"command":"echo ref A","outputs":["out/**"]}`})
		ref := filepath.Join(root, "packages", "a", "vx-ref.json")
		mtime := time.Now()
		if !racy {
			mtime = mtime.Add(-time.Hour)
		}
		if err := os.Chtimes(ref, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		loadListed(t, root)
		m := loadListed(t, root)
		if got := starts(t, root); got != "describe,tasks" {
			t.Fatalf("racy=%v: warm load started %q", racy, got)
		}
		if def, _ := m.Resolve("a", "ref"); def.Command != "echo ref A" {
			t.Fatalf("racy=%v: a#ref %+v", racy, def)
		}
		f, err := os.OpenFile(ref, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte(`{"command":"echo ref B","outputs":["out/**"]}`), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(ref, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		m = loadListed(t, root)
		if def, _ := m.Resolve("a", "ref"); def.Command != "echo ref B" {
			t.Errorf("racy=%v: after a same-size edit a#ref is %+v (plugin starts %q)", racy, def, starts(t, root))
		}
	}
}
