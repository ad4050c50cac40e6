//go:build !windows

package engine_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	files["vx.workspace.json"] = `{ "projects": ["app"], "tasks": { "build": { "command": "true" } } }`
	files["app/package.json"] = `{ "name": "app" }`
	writeFiles(t, ws, files)
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return ws
}

// TestRunSaysOnceThatVXIsNotIgnored: in a git repository that does not
// ignore .vx/, vx run says so on its first run and never again; where
// .gitignore ignores it, nothing is said.
func TestRunSaysOnceThatVXIsNotIgnored(t *testing.T) {
	t.Parallel()
	const notice = ".vx/ (vx's cache and run history) is not ignored by git"
	ws := gitWorkspace(t, map[string]string{})
	first := vxOK(t, ws, nil, "run", "build")
	if strings.Count(first.Stderr+first.Stdout, notice) != 1 {
		t.Errorf("the first run does not say once that .vx/ is not ignored\n%s", first)
	}
	for i := 0; i < 2; i++ {
		if r := vxOK(t, ws, nil, "run", "build", "--force"); strings.Contains(r.Stderr+r.Stdout, notice) {
			t.Errorf("run %d says it again\n%s", i+2, r)
		}
	}

	ignored := gitWorkspace(t, map[string]string{".gitignore": "node_modules\n.vx\n"})
	if r := vxOK(t, ignored, nil, "run", "build"); strings.Contains(r.Stderr+r.Stdout, "not ignored") {
		t.Errorf(".gitignore ignores .vx, yet the run warns\n%s", r)
	}
}
