//go:build !windows

package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/cache"
)

// A root task whose outputs glob reaches into .vx/ or .git/ never caches
// what is there: .vx/ holds vxd's discovery file with its bearer token, the
// history and the cache itself, and .git/ holds hooks. Such an entry would
// be uploaded to a remote cache and restored over another clone's state.
func TestOutputsNeverTakeVXOrGitState(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	writeFiles(t, ws, map[string]string{
		"vx.workspace.json": `{"projects": ["packages/*", "apps/*"],
			"tasks": {"//#report": {"command": "echo '{}' > report.json", "inputs": ["package.json"], "outputs": ["**/*.json", "**/pre-commit"]}}}`,
		".vx/daemon/vxd.json":   `{"token": "vxd-sekrit-token"}`,
		".git/hooks/pre-commit": "#!/bin/sh\necho hook\n",
		".git/info/extra.json":  "{}",
	})
	if s, r := runJSON(t, ws, nil, 0, "//#report"); s.Tasks[0].Cache != "miss" {
		t.Fatalf("first run: %s", r)
	}
	store, err := cache.Open(filepath.Join(ws, ".vx", "cache"), &cache.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := store.Latest("//#report")
	if err != nil {
		t.Fatal(err)
	}
	hit, err := store.Get(e.Key)
	if err != nil {
		t.Fatal(err)
	}
	files, err := hit.Restore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, f := range files {
		if strings.HasPrefix(f, ".vx/") || strings.HasPrefix(f, ".git/") {
			t.Errorf("the cache entry holds %s", f)
		}
		seen = seen || f == "report.json"
	}
	if !seen {
		t.Fatalf("the entry lacks the task's own report.json: %v", files)
	}
	b, _ := os.ReadFile(e.Path)
	if strings.Contains(string(b), "vxd-sekrit-token") {
		t.Error("the cache entry holds vxd's token")
	}
}
