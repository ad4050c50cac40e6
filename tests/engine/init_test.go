//go:build !windows

package engine_test

import (
	"path/filepath"
	"strings"
	"testing"
)

func initWorkspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "repo")
	files["package.json"] = `{ "name": "repo", "workspaces": ["packages/*"], "scripts": { "lint": "true" } }`
	files["packages/a/package.json"] = `{ "name": "a", "scripts": { "lint": "eslint --cache ." } }`
	writeFiles(t, ws, files)
	return ws
}

// TestInitIgnoresVXAndProposesNoSandbox: vx init writes no sandbox unless
// asked (--sandbox report), and adds .vx/ to .gitignore, creating it when
// absent and never twice.
func TestInitIgnoresVXAndProposesNoSandbox(t *testing.T) {
	t.Parallel()
	ws := initWorkspace(t, map[string]string{})
	vxOK(t, ws, nil, "init")
	if cfg := readFile(t, filepath.Join(ws, "vx.workspace.json")); strings.Contains(cfg, "sandbox") {
		t.Errorf("vx init proposed a sandbox unasked:\n%s", cfg)
	}
	if got := readFile(t, filepath.Join(ws, ".gitignore")); got != ".vx/\n" {
		t.Errorf(".gitignore = %q, want %q", got, ".vx/\n")
	}
	r := vxOK(t, ws, nil, "init", "--force", "--sandbox", "report")
	if got := readFile(t, filepath.Join(ws, ".gitignore")); got != ".vx/\n" {
		t.Errorf("a second vx init: .gitignore = %q, want .vx/ once", got)
	}
	if cfg := readFile(t, filepath.Join(ws, "vx.workspace.json")); !strings.Contains(cfg, `"mode": "report"`) {
		t.Errorf("vx init --sandbox report wrote no report sandbox:\n%s\n%s", cfg, r)
	}

	kept := initWorkspace(t, map[string]string{".gitignore": "node_modules\n/dist"})
	vxOK(t, kept, nil, "init")
	if got := readFile(t, filepath.Join(kept, ".gitignore")); got != "node_modules\n/dist\n.vx/\n" {
		t.Errorf(".gitignore = %q, want the line added at the end", got)
	}
	already := initWorkspace(t, map[string]string{".gitignore": "/.vx/\n"})
	var plan struct {
		Files []struct{ Path, Action string } `json:"files"`
	}
	answerJSON(t, already, &plan, "init", "--dry")
	for _, f := range plan.Files {
		if f.Path == ".gitignore" {
			t.Errorf("a .gitignore that ignores /.vx/ is planned as %s", f.Action)
		}
	}

	bad := vx(t, ws, nil, "init", "--force", "--sandbox", "sometimes")
	if bad.Code == 0 || !strings.Contains(bad.Stderr, "--sandbox") {
		t.Errorf("want a refusal naming --sandbox\n%s", bad)
	}
}
