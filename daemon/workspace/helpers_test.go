package workspace_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/internal/wine"
)

// writeTree writes files (slash paths relative to root) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	testtree.Write(t, root, files)
}

// loadTree writes files into a fresh temp dir and loads it as a workspace.
func loadTree(t *testing.T, files map[string]string) *workspace.Model {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, files)
	m, err := workspace.Load(root)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return m
}

func projectNames(ps []*workspace.Project) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// gitCmd runs git in dir; under wine, whose prefix has no git for
// Windows, t is skipped instead (the hosted runner has git).
func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		wine.Skip(t, "the wine prefix has no git for Windows")
	}
	full := append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
